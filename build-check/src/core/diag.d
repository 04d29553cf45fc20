build-check/src/core/diag.o: src/core/diag.c src/core/diag.h
src/core/diag.h:

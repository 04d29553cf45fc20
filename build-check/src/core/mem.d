build-check/src/core/mem.o: src/core/mem.c src/core/mem.h
src/core/mem.h:

build-check/src/core/evq.o: src/core/evq.c src/core/evq.h src/core/diag.h \
 src/core/mem.h
src/core/evq.h:
src/core/diag.h:
src/core/mem.h:

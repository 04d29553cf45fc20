build-check/src/core/sim.o: src/core/sim.c src/core/sim.h src/core/evq.h \
 src/core/time.h src/core/diag.h src/core/mem.h
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/core/diag.h:
src/core/mem.h:

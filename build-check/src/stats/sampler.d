build-check/src/stats/sampler.o: src/stats/sampler.c src/stats/sampler.h \
 src/core/time.h src/core/mem.h src/net/net.h src/core/rng.h \
 src/core/sim.h src/core/evq.h src/net/packet.h
src/stats/sampler.h:
src/core/time.h:
src/core/mem.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/net/packet.h:

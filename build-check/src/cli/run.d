build-check/src/cli/run.o: src/cli/run.c src/cli/cli.h \
 src/config/scenario.h src/core/diag.h src/core/mem.h src/net/model.h \
 src/core/sim.h src/core/evq.h src/core/time.h src/net/net.h \
 src/core/rng.h src/net/packet.h src/stats/sampler.h src/stats/results.h \
 src/stats/wall.h
src/cli/cli.h:
src/config/scenario.h:
src/core/diag.h:
src/core/mem.h:
src/net/model.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/net.h:
src/core/rng.h:
src/net/packet.h:
src/stats/sampler.h:
src/stats/results.h:
src/stats/wall.h:

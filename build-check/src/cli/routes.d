build-check/src/cli/routes.o: src/cli/routes.c src/cli/cli.h \
 src/config/scenario.h src/core/diag.h src/core/mem.h src/ctrl/sm.h \
 src/core/time.h src/net/model.h src/core/sim.h src/core/evq.h \
 src/net/net.h src/core/rng.h src/net/packet.h src/stats/sampler.h
src/cli/cli.h:
src/config/scenario.h:
src/core/diag.h:
src/core/mem.h:
src/ctrl/sm.h:
src/core/time.h:
src/net/model.h:
src/core/sim.h:
src/core/evq.h:
src/net/net.h:
src/core/rng.h:
src/net/packet.h:
src/stats/sampler.h:

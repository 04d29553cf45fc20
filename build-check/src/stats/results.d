build-check/src/stats/results.o: src/stats/results.c src/stats/results.h \
 src/coll/coll.h src/config/scenario.h src/core/diag.h src/core/units.h \
 src/net/model.h src/core/sim.h src/core/evq.h src/core/time.h \
 src/net/net.h src/core/rng.h src/net/packet.h src/stats/sampler.h \
 src/stats/jw.h
src/stats/results.h:
src/coll/coll.h:
src/config/scenario.h:
src/core/diag.h:
src/core/units.h:
src/net/model.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/net.h:
src/core/rng.h:
src/net/packet.h:
src/stats/sampler.h:
src/stats/jw.h:

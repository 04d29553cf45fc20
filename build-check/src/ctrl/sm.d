build-check/src/ctrl/sm.o: src/ctrl/sm.c src/ctrl/sm.h src/core/time.h \
 src/config/scenario.h src/core/diag.h src/core/mem.h src/core/units.h \
 src/ctrl/ctrl.h src/net/net.h src/core/rng.h src/core/sim.h \
 src/core/evq.h src/net/packet.h src/route/route.h src/stats/jw.h
src/ctrl/sm.h:
src/core/time.h:
src/config/scenario.h:
src/core/diag.h:
src/core/mem.h:
src/core/units.h:
src/ctrl/ctrl.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/net/packet.h:
src/route/route.h:
src/stats/jw.h:

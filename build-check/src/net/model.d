build-check/src/net/model.o: src/net/model.c src/net/model.h \
 src/core/sim.h src/core/evq.h src/core/time.h src/net/net.h \
 src/core/rng.h src/net/packet.h src/stats/sampler.h src/cc/cc.h \
 src/config/scenario.h src/core/diag.h src/core/mem.h src/ctrl/ctrl.h \
 src/net/deadlock.h src/flowctl/flowctl.h src/net/nic.h src/net/port.h \
 src/route/route.h src/stats/wall.h src/topo/topo.h \
 src/workload/workload.h
src/net/model.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/net.h:
src/core/rng.h:
src/net/packet.h:
src/stats/sampler.h:
src/cc/cc.h:
src/config/scenario.h:
src/core/diag.h:
src/core/mem.h:
src/ctrl/ctrl.h:
src/net/deadlock.h:
src/flowctl/flowctl.h:
src/net/nic.h:
src/net/port.h:
src/route/route.h:
src/stats/wall.h:
src/topo/topo.h:
src/workload/workload.h:

build-check/src/innet/sharp.o: src/innet/sharp.c src/config/scenario.h \
 src/core/diag.h src/core/mem.h src/innet/innet.h src/innet/innet_int.h \
 src/net/net.h src/core/rng.h src/core/sim.h src/core/evq.h \
 src/core/time.h src/net/packet.h
src/config/scenario.h:
src/core/diag.h:
src/core/mem.h:
src/innet/innet.h:
src/innet/innet_int.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:

build-check/src/net/packet.o: src/net/packet.c src/net/packet.h \
 src/core/mem.h
src/net/packet.h:
src/core/mem.h:

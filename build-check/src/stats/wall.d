build-check/src/stats/wall.o: src/stats/wall.c src/stats/wall.h
src/stats/wall.h:

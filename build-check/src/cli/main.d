build-check/src/cli/main.o: src/cli/main.c src/cli/cli.h \
 src/stats/results.h
src/cli/cli.h:
src/stats/results.h:

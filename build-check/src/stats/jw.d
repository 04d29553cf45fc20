build-check/src/stats/jw.o: src/stats/jw.c src/stats/jw.h src/core/diag.h
src/stats/jw.h:
src/core/diag.h:

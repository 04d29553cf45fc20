build-check/src/core/units.o: src/core/units.c src/core/units.h \
 src/core/diag.h
src/core/units.h:
src/core/diag.h:

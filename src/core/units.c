#include "core/units.h"

#include "core/diag.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

struct unit {
    const char *name;
    double mult;
};

static const struct unit SIZE_UNITS[] = {
    {"B", 1},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {NULL, 0},
};
static const struct unit TIME_UNITS[] = {
    {"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}, {NULL, 0},
};
static const struct unit RATE_UNITS[] = {
    {"bps", 1},     {"Kbps", 1e3}, {"Mbps", 1e6}, {"Gbps", 1e9},
    {"Tbps", 1e12}, {"GBps", 8e9}, {"MBps", 8e6}, {NULL, 0},
};
static const struct unit LENGTH_UNITS[] = {
    {"mm", 1}, {"cm", 10}, {"m", 1000}, {"km", 1e6}, {NULL, 0},
};

static void allowed(const struct unit *u, char *buf, size_t len) {
    size_t off = 0;
    buf[0] = 0;
    for (; u->name && off + 8 < len; u++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? " " : "", u->name);
}

/* Splits "12.5 MiB" into a non-negative number and a unit, then scales. The
 * number is parsed by hand (digits, one dot, optional exponent) so that
 * strtod's hex, inf and nan forms are rejected. */
static int parse(const char *s, const struct unit *units, const char *what, int bare_ok, double max,
                 uint64_t *out, char *why, size_t why_len) {
    char list[128];
    allowed(units, list, sizeof list);
    if (!s) {
        snprintf(why, why_len, "expected a %s such as '4%s'", what, units[1].name);
        return FS_EINVAL;
    }
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '-') {
        snprintf(why, why_len, "a %s cannot be negative", what);
        return FS_ERANGE;
    }
    const char *p = s;
    if (*p == '+') p++;
    int digits = 0, dot = 0;
    while (isdigit((unsigned char)*p) || (*p == '.' && !dot)) {
        if (*p == '.')
            dot = 1;
        else
            digits++;
        p++;
    }
    if ((*p == 'e' || *p == 'E') && digits &&
        (isdigit((unsigned char)p[1]) ||
         ((p[1] == '-' || p[1] == '+') && isdigit((unsigned char)p[2])))) {
        p += 2;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (!digits) {
        snprintf(why, why_len, "'%s' is not a %s; expected a number and a unit (%s)", s, what,
                 list);
        return FS_EINVAL;
    }
    char num[64];
    size_t nlen = (size_t)(p - s);
    if (nlen >= sizeof num) {
        snprintf(why, why_len, "'%s' is too long for a %s", s, what);
        return FS_ERANGE;
    }
    memcpy(num, s, nlen);
    num[nlen] = 0;
    double v = strtod(num, NULL);
    while (isspace((unsigned char)*p))
        p++;
    double mult = 0;
    if (!*p) {
        if (!bare_ok && v != 0) {
            snprintf(why, why_len, "'%s' needs a unit; allowed: %s", s, list);
            return FS_EINVAL;
        }
        mult = 1;
    } else {
        for (const struct unit *u = units; u->name; u++)
            if (strcmp(p, u->name) == 0) mult = u->mult;
        if (mult == 0) {
            snprintf(why, why_len, "unknown unit '%s' in '%s'; allowed: %s", p, s, list);
            return FS_EINVAL;
        }
    }
    double r = v * mult;
    if (!isfinite(r) || r > max) {
        snprintf(why, why_len, "%s '%s' is too large", what, s);
        return FS_ERANGE;
    }
    *out = (uint64_t)llround(r);
    return 0;
}

int units_parse_size(const char *s, uint64_t *bytes, char *why, size_t why_len) {
    return parse(s, SIZE_UNITS, "size", 1, 1.8e19, bytes, why, why_len);
}
int units_parse_time(const char *s, uint64_t *ps, char *why, size_t why_len) {
    return parse(s, TIME_UNITS, "time", 0, 1.8e19, ps, why, why_len);
}
int units_parse_rate(const char *s, uint64_t *bps, char *why, size_t why_len) {
    return parse(s, RATE_UNITS, "rate", 0, 1.8e19, bps, why, why_len);
}
int units_parse_length(const char *s, uint64_t *mm, char *why, size_t why_len) {
    return parse(s, LENGTH_UNITS, "length", 0, 1.8e19, mm, why, why_len);
}

size_t units_names(enum units_kind kind, const char **out, size_t max) {
    static const struct unit *const tables[] = {SIZE_UNITS, TIME_UNITS, RATE_UNITS, LENGTH_UNITS};
    size_t n = 0;
    for (const struct unit *u = tables[kind]; u->name && n + 1 < max; u++)
        out[n++] = u->name;
    if (max) out[n] = NULL;
    return n;
}

static void fmt(double v, const struct unit *units, size_t n, char *buf, size_t len) {
    size_t i = n - 1;
    while (i > 0 && v < units[i].mult)
        i--;
    double x = v / units[i].mult;
    if (x == floor(x))
        snprintf(buf, len, "%.0f%s", x, units[i].name);
    else
        snprintf(buf, len, "%.6g%s", x, units[i].name);
}

void units_fmt_size(uint64_t bytes, char *buf, size_t len) {
    /* binary units read best for buffers and messages */
    fmt((double)bytes, SIZE_UNITS, 5, buf, len);
}
void units_fmt_time(uint64_t ps, char *buf, size_t len) {
    fmt((double)ps, TIME_UNITS, 5, buf, len);
}
void units_fmt_rate(uint64_t bps, char *buf, size_t len) {
    fmt((double)bps, RATE_UNITS, 5, buf, len);
}

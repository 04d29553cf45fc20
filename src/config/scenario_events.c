/* src/config/scenario_events.c
 *
 * The scenario's `events:` list as a schema table: link failures, gray
 * links, flaps, bit errors and host stalls at given times (how to add a key: config/scenario.c).
 */
#include "config/scenario.h"

#include "config/scenario_int.h"
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

static const char *const EV_NAMES[] = {"link_down", "link_up",  "host_stall", "link_gray",
                                       "link_flap", "link_ber", NULL};

/* events ------------------------------------------------------------------ */

/* A link is named by its ends ("leaf1-spine2", "leaf1->spine2#1"); the
 * model resolves the name against the built topology, so only its form is
 * checked here. */
static int link_target_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct sc_event *e = obj;
    const char *s;
    int rc = schema_text(c, n, "a link name such as leaf1-spine2", &s);
    if (rc) return rc;
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p <= ' ')
            return schema_fail(c, n, FS_EINVAL,
                               "'%.64s' is not a link name; links are named by their ends, such "
                               "as leaf1-spine2",
                               s);
    if (!s[0] || !strchr(s, '-'))
        return schema_fail(c, n, FS_EINVAL,
                           "'%.64s' is not a link name; links are named by their ends, such as "
                           "leaf1-spine2",
                           s);
    free(e->target);
    e->target = fs_xstrdup(s);
    return 0;
}

static int host_target_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct sc_event *e = obj;
    uint32_t h;
    bool gpu;
    int rc = schema_host(c, n, false, &h, &gpu);
    if (rc) return rc;
    char buf[16];
    snprintf(buf, sizeof buf, "h%u", h);
    free(e->target);
    e->target = fs_xstrdup(buf);
    return 0;
}

static void target_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_string(f, ((const struct sc_event *)obj)->target);
}

static int ev_mode(const void *obj) {
    return ((const struct sc_event *)obj)->kind;
}

/* The action key present (exactly one) is the event's kind. */
static int ev_infer(struct schema_ctx *c, const struct yaml_node *map, const struct yaml_node *here,
                    void *obj) {
    struct sc_event *e = obj;
    int kind = -1;
    for (int k = 0; EV_NAMES[k]; k++) {
        const struct yaml_node *key = key_node(map, EV_NAMES[k]);
        if (!key) continue;
        if (kind >= 0)
            return schema_fail(c, key, FS_EINVAL,
                               "an event does one thing; it has both '%s' and '%s'", EV_NAMES[kind],
                               EV_NAMES[k]);
        kind = k;
    }
    if (kind < 0)
        return schema_fail(c, here, FS_EINVAL,
                           "an event needs one of: link_down, link_up, host_stall, link_gray, "
                           "link_flap, link_ber");
    e->kind = (enum ev_kind)kind;
    return 1;
}

#define EVT(f) offsetof(struct sc_event, f)
static const struct schema_key EVENT_KEYS[] = {
    {KEY("at", SCHEMA_TIME, EVT(at_ps), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED},
    {KEY("link_down", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_DOWN), .parse = link_target_parse, .print = target_print},
    {KEY("link_up", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_UP), .parse = link_target_parse, .print = target_print},
    {KEY("host_stall", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_HOST_STALL), .parse = host_target_parse, .print = target_print},
    {KEY("for", SCHEMA_TIME, EVT(for_ps), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED, .min = 1,
     .only = M(EV_HOST_STALL)},
    {KEY("link_gray", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_GRAY), .parse = link_target_parse, .print = target_print},
    {KEY("drop", SCHEMA_FRACTION_POS, EVT(drop), "1", NULL,
         "docs/scenario.md: a gray link drops every packet unless given"),
     .only = M(EV_LINK_GRAY)},
    {KEY("errors", SCHEMA_BOOL, EVT(errors), "false", NULL,
         "docs/scenario.md: a gray link's losses vanish (no error counter) unless given"),
     .only = M(EV_LINK_GRAY)},
    {KEY("link_flap", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_FLAP), .parse = link_target_parse, .print = target_print},
    {KEY("down", SCHEMA_TIME, EVT(down_ps), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED, .min = 1,
     .only = M(EV_LINK_FLAP)},
    {KEY("up", SCHEMA_TIME, EVT(up_ps), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED, .min = 1,
     .only = M(EV_LINK_FLAP)},
    {KEY("count", SCHEMA_U32, EVT(count), "1", NULL, "docs/scenario.md: one down/up cycle"),
     .min = 1, .max = 10000, .only = M(EV_LINK_FLAP)},
    {KEY("link_ber", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_BER), .parse = link_target_parse, .print = target_print},
    {KEY("ber", SCHEMA_FRACTION, EVT(ber), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_BER)},
};
const struct schema_table SCHEMA_EVENTS = {
    TABLE("event", EVENT_KEYS),
    .mode_of = ev_mode,
    .mode_what = "event kind",
    .mode_names = EV_NAMES,
    .infer = ev_infer,
    .flow = true,
    .has_pos = true,
    .pos_off = EVT(pos),
};

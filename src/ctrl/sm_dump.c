/* src/ctrl/sm_dump.c
 *
 * OpenSM's LFT dump (opensm-lfts.dump, `opensm -D 0x40`; docs/sources.md A10b), and
 * its reading back as OpenSM's `file` routing engine does (`-R file -U`):
 *
 *   Unicast lids [0-80] of switch Lid 13 guid 0x0001000000000008 ('L0'):
 *   0x0001 001 # Channel Adapter portguid 0x0002000000000001: 'H0'
 *   0x000d 000 # Switch portguid 0x0001000000000008: 'L0'
 *   80 lids dumped
 *
 * GUIDs here: switch index s -> 0x0001000000000000 + s, host h's port ->
 * 0x0002000000000000 + h + 1 (the layout ibsim gives these fabrics). The
 * reader needs what OpenSM's parser needs: "Unicast lids" headers with
 * " guid 0x<hex>", then "0x<lid> <port>" lines, optionally " portguid
 * 0x<hex>" (re-maps the LID to that port's LID now); other '#'-lines and the
 * "N lids dumped" trailer are skipped. A GUID outside this layout (OpenSM run
 * on ibsim, which numbers nodes its own way) is matched by the node
 * description OpenSM writes in quotes, when it is a fabsim node name.
 * Errors say file:line:column.
 */
#include "ctrl/sm_dump.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/file.h"
#include "ctrl/sm_state.h"
#include "net/net.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GUID_SW 0x0001000000000000ULL
#define GUID_CA 0x0002000000000000ULL

void sm_dump_write(const struct net *n, const struct sm *sm, FILE *f) {
    uint32_t maxlid = sm->nlids - 1;
    for (uint32_t s = 0; s < sm->S; s++) {
        uint32_t v = sm->sw_node[s];
        fprintf(f, "Unicast lids [0-%u] of switch Lid %u guid 0x%016llx ('%s'):\n", maxlid,
                sm->H + 1 + s, (unsigned long long)(GUID_SW + s), n->names[v]);
        uint32_t count = 0;
        for (uint32_t lid = 1; lid <= maxlid; lid++) {
            uint8_t e = sm_lft_current(n, sm, s, lid);
            if (e == SM_LFT_NONE) continue;
            unsigned port = e; /* the IB port number, 0 = the switch */
            bool host = lid <= sm->H;
            uint32_t t = host ? n->host_node[lid - 1] : sm->sw_node[lid - 1 - sm->H];
            unsigned long long guid = host ? GUID_CA + lid : GUID_SW + (lid - 1 - sm->H);
            fprintf(f, "0x%04x %03u # %s portguid 0x%016llx: '%s'\n", lid, port,
                    host ? "Channel Adapter" : "Switch", guid, n->names[t]);
            count++;
        }
        fprintf(f, "%u lids dumped\n", count);
    }
}

void sm_ibsim_write(const struct net *n, FILE *f) {
    fprintf(f, "# ibsim fabric written by `fabsim routes --ibsim-topology`: one record per\n"
               "# node (fabsim's name as node id and description), one line per port:\n"
               "# [port] \"peer\"[peer port]; IB port = fabsim port index + 1. The first\n"
               "# port is the SM's (h0). NVLink (h*.nvs) is not InfiniBand: left out.\n\n");
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t v = 0; v < n->nnodes; v++) {
            const struct node *nd = &n->nodes[v];
            bool host = nd->kind == NODE_HOST;
            if (host != (pass == 0) || nd->role == ROLE_NVSWITCH) continue;
            fprintf(f, "%s\t%u \"%s\"\n", host ? "Hca" : "Switch", nd->nports, n->names[v]);
            for (uint32_t i = 0; i < nd->nports; i++) {
                const struct port *q = &n->ports[n->ports[nd->first_port + i].peer];
                const struct node *far = &n->nodes[q->node];
                if (far->role == ROLE_NVSWITCH) continue;
                fprintf(f, "[%u]\t\"%s\"[%u]\n", i + 1, n->names[q->node],
                        (unsigned)(n->ports[nd->first_port + i].peer - far->first_port + 1));
            }
            fputc('\n', f);
        }
}

/* The LID that port GUID `g` has in this fabric, or 0. */
static uint32_t lid_of_guid(const struct sm *sm, unsigned long long g) {
    if (g > GUID_CA && g - GUID_CA <= sm->H) return (uint32_t)(g - GUID_CA);
    if (g >= GUID_SW && g - GUID_SW < sm->S) return sm->H + 1 + (uint32_t)(g - GUID_SW);
    return 0;
}

/* The LID of the node named by the last '...' on the line (OpenSM writes the
 * node description there), or 0. OpenSM under ibsim hands out its own GUIDs
 * and LIDs; a fabric described to ibsim with fabsim's node names as
 * descriptions (`fabsim routes --ibsim-topology`) is matched by name. */
static uint32_t lid_of_name(const struct net *n, const struct sm *sm, const char *line,
                            bool want_switch) {
    const char *e = strrchr(line, '\'');
    if (!e) return 0;
    const char *b = e;
    while (b > line && b[-1] != '\'')
        b--;
    if (b == line) return 0;
    char name[64];
    size_t len = (size_t)(e - b);
    if (len == 0 || len >= sizeof name) return 0;
    memcpy(name, b, len);
    name[len] = 0;
    uint32_t v = net_node_by_name(n, name);
    if (v == NET_NONE) return 0;
    if (n->nodes[v].kind == NODE_HOST) return want_switch ? 0 : sm_host_lid(n->nodes[v].index);
    for (uint32_t s = 0; s < sm->S; s++)
        if (sm->sw_node[s] == v) return sm->H + 1 + s;
    return 0;
}

static int bad(struct diag *d, const char *path, unsigned line, size_t col, const char *what) {
    return diag_set(d, path, (struct srcpos){line, (unsigned)col + 1}, FS_EINVAL, "lft_file: %s",
                    what);
}

/* Bounds of the reader (docs/outputs.md "Limits"): a dump of a fabric with
 * 1000 switches and 64k LIDs is ~2 GB, so 4 GiB; lines of the dump are under
 * 100 bytes; a run of blank or comment lines this long is not a dump. */
#define LFT_MAX_BYTES ((long long)4 << 30)
#define LFT_MAX_BLANK_RUN 100000u

static int sm_dump_parse(struct net *n, struct sm *sm, const char *path, FILE *f, struct diag *d);

/* A relative lft_file is resolved against the scenario file's folder. */
int sm_dump_read(struct net *n, struct sm *sm, const char *lft, struct diag *d) {
    if (!lft || !*lft)
        return diag_set(d, n->sc->file, (struct srcpos){0, 0}, FS_EINVAL,
                        "fabric.routing_engine: file needs fabric.lft_file: PATH (an "
                        "opensm-lfts.dump, e.g. written by `fabsim routes`)");
    char *path = fs_path_beside(n->sc->file, lft);
    FILE *f = fs_open_regular(path);
    struct stat st;
    int rc = 0;
    if (!f)
        rc = diag_set(d, path, (struct srcpos){0, 0}, FS_ENOENT,
                      "lft_file: cannot read: %s (it must be a regular file)", strerror(errno));
    else if (fstat(fileno(f), &st) == 0 && st.st_size > LFT_MAX_BYTES)
        rc = diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL, "lft_file: larger than %lld GiB",
                      LFT_MAX_BYTES >> 30);
    else
        rc = sm_dump_parse(n, sm, path, f, d);
    if (f) fclose(f);
    free(path);
    return rc;
}

/* Every switch's table must name a port for every host LID: an empty or
 * truncated dump would otherwise drop every packet it lacks. */
static int check_complete(struct net *n, struct sm *sm, const char *path, unsigned line,
                          struct diag *d) {
    for (uint32_t s = 0; s < sm->S; s++)
        for (uint32_t h = 0; h < sm->H; h++) {
            uint32_t lid = sm_host_lid(h);
            if (sm->next[(size_t)s * sm->nlids + lid] != SM_LFT_NONE) continue;
            return diag_set(d, path, (struct srcpos){line, 0}, FS_EINVAL,
                            "lft_file: no entry for LID 0x%04x (%s) in the table of switch '%s': "
                            "the file is empty, truncated or for another fabric (`fabsim "
                            "routes` writes a complete one)",
                            lid, n->names[n->host_node[h]], n->names[sm->sw_node[s]]);
        }
    return 0;
}

static int sm_dump_parse(struct net *n, struct sm *sm, const char *path, FILE *f, struct diag *d) {
    memset(sm->next, SM_LFT_NONE, (size_t)sm->S * sm->nlids * sizeof *sm->next);
    char buf[1024], msg[160];
    unsigned line = 0, blank = 0;
    int32_t cur = -1;
    int rc = 0, got;
    while (!rc && (got = fs_read_line(f, buf, sizeof buf)) != 0) {
        line++;
        if (got < 0) {
            rc = bad(d, path, line, 0,
                     got == -2 ? "read error"
                               : "line longer than 1023 bytes or holding a NUL byte (not an "
                                 "opensm-lfts.dump)");
            break;
        }
        const char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\r' || *s == 0 || *s == '#') {
            if (++blank > LFT_MAX_BLANK_RUN) {
                snprintf(msg, sizeof msg, "more than %u blank or comment lines in a row",
                         LFT_MAX_BLANK_RUN);
                rc = bad(d, path, line, 0, msg);
            }
            continue;
        }
        blank = 0;
        if (!strncmp(s, "Unicast lids", 12)) {
            const char *g = strstr(s, " guid 0x");
            if (!g) {
                rc = bad(d, path, line, (size_t)(s - buf), "switch header without ' guid 0x'");
                break;
            }
            char *end;
            unsigned long long guid = strtoull(g + 8, &end, 16);
            uint32_t lid = end == g + 8 ? 0 : lid_of_guid(sm, guid);
            if (!lid || lid <= sm->H) lid = lid_of_name(n, sm, s, true);
            if (!lid || lid <= sm->H) {
                snprintf(msg, sizeof msg,
                         "unknown switch guid 0x%016llx (switches are 0x%016llx..0x%016llx)", guid,
                         (unsigned long long)GUID_SW, (unsigned long long)(GUID_SW + sm->S - 1));
                rc = bad(d, path, line, (size_t)(g + 6 - buf), msg);
                break;
            }
            cur = (int32_t)(lid - 1 - sm->H);
            continue;
        }
        if (s[0] == '0' && s[1] == 'x') {
            if (cur < 0) {
                rc = bad(d, path, line, (size_t)(s - buf),
                         "route line before any 'Unicast lids ... guid 0x...' header");
                break;
            }
            char *end;
            unsigned long lid = strtoul(s + 2, &end, 16);
            const char *pg = strstr(end, " portguid 0x");
            uint32_t mapped = pg ? lid_of_guid(sm, strtoull(pg + 12, NULL, 16)) : 0;
            if (pg && !mapped) mapped = lid_of_name(n, sm, s, false);
            if (pg && !mapped) {
                snprintf(msg, sizeof msg, "unknown portguid 0x%016llx",
                         strtoull(pg + 12, NULL, 16));
                rc = bad(d, path, line, (size_t)(pg + 1 - buf), msg);
                break;
            }
            if (end == s + 2 || lid == 0 || (!mapped && lid >= sm->nlids)) {
                snprintf(msg, sizeof msg, "LID must be 0x0001..0x%04x", sm->nlids - 1);
                rc = bad(d, path, line, (size_t)(s - buf), msg);
                break;
            }
            const char *ps = end;
            while (*ps == ' ' || *ps == '\t')
                ps++;
            if (!isdigit((unsigned char)*ps)) {
                rc = bad(d, path, line, (size_t)(ps - buf), "expected an output port number");
                break;
            }
            unsigned long port = strtoul(ps, &end, 10);
            uint32_t v = sm->sw_node[cur];
            if (port > n->nodes[v].nports) {
                snprintf(msg, sizeof msg, "port %lu out of range: switch '%s' has ports 0..%u",
                         port, n->names[v], n->nodes[v].nports);
                rc = bad(d, path, line, (size_t)(ps - buf), msg);
                break;
            }
            if (mapped) lid = mapped;
            sm->next[(size_t)cur * sm->nlids + lid] = (uint8_t)port; /* 0: the switch */
            continue;
        }
        if (isdigit((unsigned char)*s) && strstr(s, "lids dumped")) continue;
        rc = bad(d, path, line, (size_t)(s - buf),
                 "expected 'Unicast lids ...', '0x<lid> <port>' or '# ...'");
    }
    return rc ? rc : check_complete(n, sm, path, line, d);
}

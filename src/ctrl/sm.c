/* src/ctrl/sm.c
 *
 * The InfiniBand subnet manager (control_plane.kind: sm), after OpenSM.
 *
 * At start the fabric is brought up before traffic: the SM sweeps it
 * (directed-route SMPs), assigns LIDs, runs fabric.routing_engine
 * (sm_route.c), pushes every LFT block and checks the channel dependency
 * graph; a cycle is a warning ("these routes can deadlock"). The work is
 * counted (results.json "subnet_manager"), not timed: SUBNET UP precedes t=0.
 *
 * SMP counts follow OpenSM's structure (per switch: NodeInfo, SwitchInfo,
 * NodeDesc; per port: NodeInfo through it, PortInfo, ...; then per port the
 * LID/MTU/state and SL2VL/VLArb sets; then the LFT blocks), with per-port
 * coefficients fitted to the exact counts OpenSM produced under ibsim
 * (docs/sources.md A10b): discovery = 2 + 4 x ports + 3 x switches (1,074 and
 * 3,314 exactly), set-up = 4 x host ports + 3.5 x switch ports, a heavy
 * re-sweep = 4.5 x host ports + 3.5 x switch ports (956 and 2,800 measured).
 *
 * After a link changes state the SM gets a trap control_plane.detect later,
 * re-sweeps the whole fabric (fixed phase cost + SMPs x per-SMP time),
 * recomputes the routes (modelled compute time per LFT entry, A10b), and
 * pushes only the changed 64-LID blocks, one SMP each, in switch order. A
 * switch applies a block when its SMP arrives, so the fabric is partially
 * updated in between, as on hardware. ftree and file fall back to minhop
 * after a failure (A10b: OpenSM's ftree does without its GUID files).
 * Defaults reproduce A10b's 40-45 ms (16 switches) and 89-95 ms (80
 * switches) from the drop to new LFTs in place.
 *
 * SHIELD (control_plane.shield): shield_delay after a port went down, its
 * switch moves the LFT entries that used it to other live minimal ports of
 * its own (docs/sources.md A10: FLFR); destinations it can no longer reach at all
 * are notified to its neighbours (FLFN), which move their entries pointing at
 * it. All long before the SM is done; the SM's later pushes overwrite.
 */
#include "ctrl/sm.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/mem.h"
#include "core/units.h"
#include "ctrl/ctrl.h"
#include "ctrl/sm_route.h"
#include "ctrl/sm_state.h"
#include "net/dist.h"
#include "net/net.h"
#include "route/route.h"
#include "core/jw.h"

#include <stdlib.h>
#include <string.h>

/* Per-SMP time and fixed heavy-sweep cost, fitted to A10b (OpenSM 3.3.23
 * under ibsim): 956 SMPs -> 40-45 ms, ~2,800 + 76 blocks -> 89-95 ms after
 * the drop, with a 1 ms trap. Emulation on a shared machine (+-2x, A10b). */
#define SM_SMP_PS_DEFAULT (23600 * PS_PER_NS)
#define SM_SWEEP_FIXED_PS_DEFAULT (18500 * PS_PER_US)
/* SHIELD reaction: A10 claims 5000x faster than the SM; 5000x below A10b's
 * 42-92 ms is 8-18 us. */
#define SM_SHIELD_DELAY_PS_DEFAULT (10 * PS_PER_US)

enum { EV_TRAP = 1u << 30, EV_SWEPT = 2u << 30, EV_PUSH = 3u << 30 };
#define EV_MASK (3u << 30)

/* Routing compute time per LFT entry (switch x LID), A10b: fat tree k=8
 * (80 x 208 entries) minhop 4.3 ms, updn 5.8 ms, ftree 5.6 ms; file 0.65 ms
 * on ls64 (16 x 80). */
static sim_time_ps compute_cost_ps(int engine) {
    switch (engine) {
    case ENGINE_UPDN:
        return 350 * PS_PER_NS;
    case ENGINE_FTREE:
        return 340 * PS_PER_NS;
    case ENGINE_FILE:
        return 500 * PS_PER_NS;
    default:
        return 260 * PS_PER_NS;
    }
}

static const char *engine_name(int e) {
    static const char *const names[] = {"minhop", "updn", "ftree", "file"};
    return e >= 0 && e <= ENGINE_FILE ? names[e] : "?";
}

struct sm *sm_of(struct net *n) {
    return n->ctrl == &ctrl_sm_ops ? n->ctrl_state : NULL;
}

static void count_ports(const struct net *n, uint64_t *sw_ports, uint64_t *host_ports) {
    *sw_ports = *host_ports = 0;
    for (uint32_t p = 0; p < n->nports; p++) {
        if (!n->ports[p].up || !n->ports[n->ports[p].peer].up) continue;
        if (n->nodes[n->ports[p].node].kind == NODE_SWITCH)
            (*sw_ports)++;
        else
            (*host_ports)++;
    }
}

/* Does this process keep switch index s's tables (its rank's switch)? */
static bool sm_kept(const struct net *n, const struct sm *sm, uint32_t s) {
    return !n->part_owner || n->part_owner[sm->sw_node[s]] == n->part_rank;
}

static uint32_t sw_row_of(const struct sm *sm, uint32_t s) {
    return sm->sw_row ? sm->sw_row[s] : s;
}

static size_t swtab_col(const struct sm *sm, uint32_t lid) {
    return lid ? lid - sm->H : 0;
}

uint8_t sm_lft_current(const struct net *n, const struct sm *sm, uint32_t s, uint32_t lid) {
    if (sm->tab) return sm->tab[(size_t)s * sm->nlids + lid];
    if (lid >= 1 && lid <= sm->H) { /* lft_publish's mapping, back */
        uint16_t e = *net_lft_entry(n, s, lid - 1);
        return e ? (uint8_t)e : SM_LFT_NONE;
    }
    FS_ASSERT(sw_row_of(sm, s) != UINT32_MAX, "LFT of switch %u not kept here", s);
    return sm->swtab[(size_t)sw_row_of(sm, s) * (sm->S + 1) + swtab_col(sm, lid)];
}

/* A table for the routing engines to fill: every LID without a route (the
 * engines write LIDs 1..nlids-1; LID 0 stays so). */
static uint8_t *next_alloc(const struct sm *sm) {
    size_t cells = (size_t)sm->S * sm->nlids + 1;
    uint8_t *t = fs_xmalloc(cells);
    memset(t, SM_LFT_NONE, cells);
    return t;
}

/* LIDs [lid_lo, lid_hi) of switch index s, from table `src`, into what this
 * process keeps of it: n->lft (the data plane's view: the host LIDs, the
 * same port numbering, 0 = no route) if it holds the row, and swtab (the
 * other LIDs) without the SM's own copy. */
static void lft_publish(struct net *n, struct sm *sm, const uint8_t *src, uint32_t s,
                        uint32_t lid_lo, uint32_t lid_hi) {
    const uint8_t *row = src + (size_t)s * sm->nlids;
    bool lft = !n->lft_row || n->lft_row[s] != NET_NONE;
    uint32_t sw = sm->tab ? UINT32_MAX : sw_row_of(sm, s);
    uint8_t *swrow = sw == UINT32_MAX ? NULL : sm->swtab + (size_t)sw * (sm->S + 1);
    for (uint32_t lid = lid_lo; lid < lid_hi && lid < sm->nlids; lid++) {
        uint8_t e = row[lid];
        if (lid >= 1 && lid <= sm->H) {
            if (lft) *net_lft_entry(n, s, lid - 1) = e == SM_LFT_NONE ? 0 : e;
        } else if (swrow) {
            swrow[swtab_col(sm, lid)] = e;
        }
    }
}

static void cdg_warn(struct net *n, struct sm *sm) {
    sm->cdg_acyclic = sm_cdg_check(n, sm);
    if (sm->cdg_acyclic) return;
    char buf[120] = "", name[48];
    size_t len = 0;
    for (uint32_t i = 0; i < sm->ncdg_cycle && len + 8 < sizeof buf; i++) {
        net_port_name(n, sm->cdg_cycle[i], name, sizeof name);
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? " " : "", name);
    }
    net_warn(n, "these routes can deadlock (%s): channel dependency cycle %s",
             engine_name(sm->engine), buf);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void sm_on_event(struct sim *s, const struct event *e);
static void shield(struct net *n, struct sm *sm, uint32_t dp);

static int sm_init(struct net *n, struct diag *d) {
    struct sm *sm = fs_xcalloc(1, sizeof *sm);
    n->ctrl_state = sm;
    const struct model_params *sc = n->sc;
    sm->S = n->nswitches;
    sm->H = n->nhosts;
    sm->nlids = sm->H + sm->S + 1;
    sm->nblocks = (sm->nlids - 1) / SM_LFT_BLOCK + 1;
    sm->sw_node = fs_xcalloc(sm->S + 1, sizeof *sm->sw_node);
    sm->sw_port0 = fs_xcalloc(sm->S + 1, sizeof *sm->sw_port0);
    for (uint32_t v = 0; v < n->nnodes; v++) {
        if (n->nodes[v].kind != NODE_SWITCH) continue;
        if (n->nodes[v].nports > SM_MAX_PORTS)
            return diag_set(d, sc->file, (struct srcpos){0, 0}, FS_EINVAL,
                            "switch '%s' has %u ports: an InfiniBand switch has at most %u "
                            "(8-bit port numbers in its forwarding table)",
                            n->names[v], n->nodes[v].nports, SM_MAX_PORTS);
        sm->sw_node[n->nodes[v].index] = v;
        sm->sw_port0[n->nodes[v].index] = n->nodes[v].first_port;
    }
    sm->next = next_alloc(sm);
    sm->engine = sc->fabric.routing_engine;
    sim_register(n->sim, NET_EV_CTRL, sm_on_event);
    int rc = sm_route_compute(n, sm, sm->engine, d);
    if (rc) return rc;
    /* The current tables. SHIELD moves the data plane's entries of a switch
     * and of its neighbours by itself, after which n->lft is no longer the
     * SM's pushes: the SM keeps its own copy (every switch), and every rank
     * every row of n->lft (it reads its neighbours'). Otherwise n->lft is
     * what the SM pushed and is its copy too, for the host LIDs: each rank
     * keeps the rows of its own switches only (so does the data plane,
     * which reads no other), and swtab their other LIDs. An lft_file may
     * route a host LID to port 0, which n->lft cannot tell from no route:
     * then the SM's copy too. */
    bool self_host = false;
    for (uint32_t x = 0; x < sm->S && !self_host; x++)
        for (uint32_t h = 0; h < sm->H && !self_host; h++)
            self_host = sm->next[(size_t)x * sm->nlids + sm_host_lid(h)] == SM_LFT_SELF;
    free(n->lft);
    free(n->lft_row);
    n->lft_row = NULL;
    if (sc->fabric.control_plane.shield || self_host) {
        sm->tab = next_alloc(sm);
        memcpy(sm->tab, sm->next, (size_t)sm->S * sm->nlids);
        n->lft = fs_xmalloc(((size_t)sm->S * sm->H + 1) * sizeof *n->lft);
    } else {
        uint32_t kept = sm->S;
        if (n->part_owner) {
            n->lft_row = fs_xmalloc(((size_t)sm->S + 1) * sizeof *n->lft_row);
            sm->sw_row = fs_xmalloc(((size_t)sm->S + 1) * sizeof *sm->sw_row);
            kept = 0;
            for (uint32_t x = 0; x < sm->S; x++)
                n->lft_row[x] = sm->sw_row[x] = sm_kept(n, sm, x) ? kept++ : NET_NONE;
        }
        n->lft = fs_xmalloc(((size_t)kept * sm->H + 1) * sizeof *n->lft);
        sm->swtab = fs_xmalloc((size_t)kept * (sm->S + 1) + 1);
    }
    for (uint32_t x = 0; x < sm->S; x++)
        if (sm->tab || sm_kept(n, sm, x)) lft_publish(n, sm, sm->next, x, 0, sm->nlids);
    uint64_t swp, hp;
    count_ports(n, &swp, &hp);
    sm->smps_discovery = 2 + 4 * (swp + hp) + 3 * (uint64_t)sm->S;
    sm->lft_blocks = (uint64_t)sm->S * sm->nblocks;
    sm->smps_total = sm->smps_discovery + 4 * hp + (7 * swp) / 2 + sm->lft_blocks;
    sm->compute_ps = compute_cost_ps(sm->engine) * sm->S * sm->nlids;
    sm->last_done_ps = SIM_TIME_NEVER;
    cdg_warn(n, sm); /* on the computed tables (sm->next) */
    free(sm->next);  /* until a re-sweep computes again */
    sm->next = NULL;
    return 0;
}

static void sm_fini(struct net *n) {
    struct sm *sm = n->ctrl_state;
    if (!sm) return;
    free(sm->sw_node);
    free(sm->sw_port0);
    free(sm->tab);
    free(sm->swtab);
    free(sm->sw_row);
    free(sm->next);
    free(sm->cdg_cycle);
    free(sm);
    n->ctrl_state = NULL;
}

static sim_time_ps smp_ps(const struct net *n) {
    uint64_t v = n->sc->fabric.control_plane.smp_ps;
    return v ? v : SM_SMP_PS_DEFAULT;
}

static void start_sweep(struct net *n, struct sm *sm) {
    const struct control_plane_params *cp = &n->sc->fabric.control_plane;
    sm->busy = true;
    sm->sweeps++;
    sm->last_sweep_start_ps = n->sim->now_ps;
    uint64_t swp, hp;
    count_ports(n, &swp, &hp);
    uint64_t smps = (7 * swp + 9 * hp) / 2;
    sm->resweep_smps += smps;
    sim_time_ps fixed = cp->sweep_fixed_ps ? cp->sweep_fixed_ps : SM_SWEEP_FIXED_PS_DEFAULT;
    sim_at(n->sim, n->sim->now_ps + fixed + smps * smp_ps(n), 0, NET_EV_CTRL, EV_SWEPT, 0);
}

static void finish(struct net *n, struct sm *sm) {
    free(sm->next); /* every block pushed */
    sm->next = NULL;
    sm->busy = false;
    sm->last_done_ps = n->sim->now_ps;
    for (uint32_t i = 0; i < n->ncp_rows; i++) {
        struct cp_row *r = &n->cp_rows[i];
        if (r->rerouted_ps == SIM_TIME_NEVER && r->at_ps <= sm->last_sweep_start_ps)
            r->rerouted_ps = n->sim->now_ps;
    }
    if (sm->dirty) {
        sm->dirty = false;
        start_sweep(n, sm);
    } else if (!sm->trap_pending && sm->work_held) {
        sm->work_held = false;
        net_ctrl_release(n);
    }
}

static void swept(struct net *n, struct sm *sm) {
    /* OpenSM's ftree needs its root/compute-node GUID files to keep its
     * layout after a failure; without them it falls back to minhop (A10b). */
    int engine =
        sm->engine == ENGINE_FTREE || sm->engine == ENGINE_FILE ? ENGINE_MINHOP : sm->engine;
    struct diag d = {0};
    if (!sm->next) sm->next = next_alloc(sm);
    sm_route_compute(n, sm, engine, &d);
    if (n->fib) route_fib_build(n); /* the AR groups and SHIELD alternatives, re-programmed */
    sm->compute_ps = compute_cost_ps(engine) * sm->S * sm->nlids;
    sim_time_ps t = n->sim->now_ps + sm->compute_ps;
    /* The changed blocks, in switch order. Each rank knows its own
     * switches' tables only (sm->tab NULL on several ranks): it compares
     * those, and the lists are gathered, so every rank pushes (counts, and
     * times) every block as one process does. */
    uint32_t *changed = NULL, nchanged = 0;
    size_t cap = 0;
    for (uint32_t s = 0; s < sm->S; s++) {
        if (!sm->tab && !sm_kept(n, sm, s)) continue;
        for (uint32_t b = 0; b < sm->nblocks; b++) {
            uint32_t lo = b * SM_LFT_BLOCK;
            uint32_t hi = lo + SM_LFT_BLOCK < sm->nlids ? lo + SM_LFT_BLOCK : sm->nlids;
            const uint8_t *nx = sm->next + (size_t)s * sm->nlids;
            bool same = true;
            if (sm->tab)
                same = !memcmp(sm->tab + (size_t)s * sm->nlids + lo, nx + lo, hi - lo);
            else
                for (uint32_t lid = lo; lid < hi && same; lid++)
                    same = sm_lft_current(n, sm, s, lid) == nx[lid];
            if (same) continue;
            fs_grow((void **)&changed, &cap, nchanged + 1, sizeof *changed);
            changed[nchanged++] = s * sm->nblocks + b;
        }
    }
    if (!sm->tab && n->part_owner) {
        FS_ASSERT(n->dist && n->ctrl_pending, "a re-sweep on several ranks outside a run");
        /* A collective inside a window: every rank runs this event (the
         * control plane is replicated) in the same window, and none holds
         * while the SM converges (ctrl_pending is in every rank's share). */
        uint32_t *all = NULL;
        nchanged = n->dist->allgather_u32(n, changed, nchanged, &all);
        free(changed);
        changed = all;
        qsort(changed, nchanged, sizeof *changed, cmp_u32);
    }
    uint32_t pushes = 0;
    for (uint32_t i = 0; i < nchanged; i++) {
        pushes++;
        t += smp_ps(n);
        sim_at(n->sim, t, 0, NET_EV_CTRL, EV_PUSH | changed[i], 0);
    }
    free(changed);
    sm->pushes_left = pushes;
    sm->last_blocks_changed = pushes;
    sm->blocks_pushed += pushes;
    if (!pushes) sim_at(n->sim, t, 0, NET_EV_CTRL, EV_PUSH | EV_MASK >> 2, 0); /* nothing to push */
}

static void push(struct net *n, struct sm *sm, uint32_t idx) {
    if (idx == (EV_MASK >> 2)) {
        finish(n, sm);
        return;
    }
    uint32_t s = idx / sm->nblocks, b = idx % sm->nblocks;
    uint32_t lo = b * SM_LFT_BLOCK,
             hi = lo + SM_LFT_BLOCK < sm->nlids ? lo + SM_LFT_BLOCK : sm->nlids;
    if (sm->tab) {
        size_t base = (size_t)s * sm->nlids;
        memcpy(sm->tab + base + lo, sm->next + base + lo, (hi - lo) * sizeof *sm->tab);
    }
    /* another rank's switch, on several ranks: counted, applied by its rank */
    if (sm->tab || sm_kept(n, sm, s) || !n->lft_row) lft_publish(n, sm, sm->next, s, lo, hi);
    if (--sm->pushes_left == 0) finish(n, sm);
}

static void sm_on_event(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct sm *sm = n->ctrl_state;
    if (e->aux == 1) {
        shield(n, sm, e->arg);
        return;
    }
    switch (e->arg & EV_MASK) {
    case EV_TRAP:
        sm->trap_pending = false;
        if (sm->busy)
            sm->dirty = true;
        else
            start_sweep(n, sm);
        break;
    case EV_SWEPT:
        swept(n, sm);
        break;
    case EV_PUSH:
        push(n, sm, e->arg & ~EV_MASK);
        break;
    default:
        break;
    }
}

static void sm_on_link_change(struct net *n, uint32_t port, bool up) {
    struct sm *sm = n->ctrl_state;
    const struct control_plane_params *cp = &n->sc->fabric.control_plane;
    if (!up && cp->shield)
        sim_at(n->sim,
               n->sim->now_ps +
                   (cp->shield_delay_ps ? cp->shield_delay_ps : SM_SHIELD_DELAY_PS_DEFAULT),
               0, NET_EV_CTRL, port, 1);
    if (sm->trap_pending) return;
    sm->trap_pending = true;
    /* The run goes on until the SM has converged (results: rerouted_at_ns). */
    if (!sm->work_held) {
        sm->work_held = true;
        net_ctrl_hold(n);
    }
    sim_at(n->sim, n->sim->now_ps + n->sc->fabric.control_plane.detect_ps, 0, NET_EV_CTRL, EV_TRAP,
           0);
}

/* A live minimal port of switch node v towards host h other than `avoid`
 * (the FIB as the SM last programmed it: AR groups), or NET_NONE. */
static uint32_t live_alternative(struct net *n, uint32_t v, uint32_t h, uint32_t avoid) {
    const uint32_t *ports;
    uint32_t c = route_fib_get(n, v, h, &ports), nlive = 0;
    for (uint32_t i = 0; i < c; i++)
        nlive += ports[i] != avoid && n->ports[ports[i]].up && n->ports[n->ports[ports[i]].peer].up;
    if (!nlive) return NET_NONE;
    uint32_t k = h % nlive;
    for (uint32_t i = 0; i < c; i++)
        if (ports[i] != avoid && n->ports[ports[i]].up && n->ports[n->ports[ports[i]].peer].up &&
            k-- == 0)
            return ports[i];
    return NET_NONE;
}

/* SHIELD on the switch owning dead port `dp`: FLFR moves its own LFT entries
 * to live minimal ports; for destinations it cannot reach any more, FLFN
 * tells its neighbours, which move their entries that point at it. */
static void shield(struct net *n, struct sm *sm, uint32_t dp) {
    uint32_t v = n->ports[dp].node;
    if (n->nodes[v].kind != NODE_SWITCH || n->ports[dp].up) return;
    for (uint32_t i = 0; i < n->ncp_rows; i++) {
        struct cp_row *r = &n->cp_rows[i];
        if ((r->port == dp || n->ports[r->port].peer == dp) &&
            r->local_rerouted_ps == SIM_TIME_NEVER && r->at_ps <= n->sim->now_ps)
            r->local_rerouted_ps = n->sim->now_ps;
    }
    /* pFRN (MLNXSM 5.11 "self healing network with PFRN", sources.md A10):
     * under adaptive routing the switch also tells its peers, which mask it
     * in their AR groups for the destinations it lost, so AR stops choosing
     * a spine with no live port down to the destination. Modelled as every
     * AR group rebuilt over the live links, valley-free (ar_updn / ar_ftree,
     * the engines pFRN runs with), at the SHIELD time: the messages' one
     * hop (~1 us) is left out. */
    if (n->sc->fabric.routing == ROUTING_ADAPTIVE) {
        n->fib_updown = route_layered(n);
        route_fib_build(n);
    }
    uint32_t H = sm->H, s = n->nodes[v].index;
    for (uint32_t h = 0; h < H; h++) {
        if (net_lft_get(n, s, v, h) != dp) continue;
        uint32_t alt = live_alternative(n, v, h, dp);
        if (alt != NET_NONE) {
            net_lft_set(n, s, v, h, alt);
            continue;
        }
        const struct node *nd = &n->nodes[v];
        for (uint32_t i = 0; i < nd->nports; i++) {
            uint32_t back = n->ports[nd->first_port + i].peer; /* neighbour -> v */
            uint32_t u = n->ports[back].node;
            if (n->nodes[u].kind != NODE_SWITCH || !n->ports[back].up) continue;
            uint32_t su = n->nodes[u].index;
            if (net_lft_get(n, su, u, h) == back &&
                (alt = live_alternative(n, u, h, back)) != NET_NONE)
                net_lft_set(n, su, u, h, alt);
        }
    }
}

static void sm_write_results(const struct net *n, struct jw *w) {
    const struct sm *sm = n->ctrl_state;
    char name[48];
    jw_key(w, "subnet_manager");
    jw_obj(w);
    jw_kstr(w, "routing_engine", engine_name(sm->engine));
    jw_ku64(w, "smps", sm->smps_total);
    jw_ku64(w, "smps_discovery", sm->smps_discovery);
    jw_ku64(w, "lft_blocks", sm->lft_blocks);
    jw_ku64(w, "lids", sm->nlids - 1);
    jw_kbool(w, "cdg_acyclic", sm->cdg_acyclic);
    jw_key(w, "cdg_cycle");
    jw_arr_compact(w);
    for (uint32_t i = 0; i < sm->ncdg_cycle; i++) {
        net_port_name(n, sm->cdg_cycle[i], name, sizeof name);
        jw_str(w, name);
    }
    jw_arr_end(w);
    jw_knum(w, "compute_ns", time_ps_to_ns(sm->compute_ps));
    jw_ku64(w, "resweeps", sm->sweeps);
    jw_ku64(w, "resweep_smps", sm->resweep_smps);
    jw_ku64(w, "lft_blocks_pushed", sm->blocks_pushed);
    jw_kbool(w, "shield", n->sc->fabric.control_plane.shield);
    jw_obj_end(w);
}

const struct ctrl_ops ctrl_sm_ops = {
    .name = "sm",
    .init = sm_init,
    .fini = sm_fini,
    .on_link_change = sm_on_link_change,
    .write_results = sm_write_results,
};

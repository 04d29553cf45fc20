/* tests/config/test_scenario.c
 *
 * The scenario loader: defaults per fabric kind, the SPEC.md example read
 * to exact integers, --set overrides, a table of malformed scenarios (code,
 * file:line:col and message), and the explain round trip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cc/cc.h"
#include "config/scenario.h"
#include "config/schema.h"
#include "workload/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PS_NS 1000ull
#define PS_US 1000000ull
#define PS_MS 1000000000ull
#define KIB 1024ull
#define MIB (1024ull * 1024ull)

/* The scenario block of SPEC.md, verbatim. */
static const char SPEC_EXAMPLE[] =
    "name: incast-ib                 # used for the default output folder\n"
    "seed: 1\n"
    "stop: 10ms                      # optional cap on simulated time;\n"
    "fabric:\n"
    "  kind: infiniband\n"
    "  link: 400Gbps\n"
    "  mtu: 4096\n"
    "  cable: 5m\n"
    "  switch_latency: 200ns\n"
    "  buffer: 1MiB\n"
    "  flow_control: credit\n"
    "  routing: static\n"
    "  routing_engine: ftree\n"
    "  congestion_control: none\n"
    "  pfc: { xoff: 200KiB, xon: 150KiB, headroom: 100KiB, watchdog: 100ms }\n"
    "  ecn: { kmin: 150KiB, kmax: 1500KiB, pmax: 0.2 }\n"
    "  dcqcn:\n"
    "    g: 0.00390625\n"
    "    alpha_period: 55us\n"
    "    rate_reduce_period: 50us\n"
    "    timer: 55us\n"
    "    byte_counter: 10MB\n"
    "    fast_recovery_steps: 5\n"
    "    rai: 40Mbps\n"
    "    rhai: 200Mbps\n"
    "    cnp_interval: 50us\n"
    "    min_rate: 1Mbps\n"
    "  transport: { retransmit: go_back_n, timeout: 100us, ack_every: 1 }\n"
    "  reorder_buffer: 256KiB\n"
    "  sharp: false\n"
    "  control_plane:\n"
    "    kind: sm\n"
    "    detect: 1us\n"
    "topology:\n"
    "  kind: leaf_spine\n"
    "  leaves: 4\n"
    "  spines: 4\n"
    "  hosts_per_leaf: 4\n"
    "  uplinks_per_spine: 1\n"
    "  # fat_tree: { k: 8 }    ring: { switches: 5, hosts_per_switch: 1 }\n"
    "  gpus_per_host: 1\n"
    "  nvlink: 3600Gbps\n"
    "workload:\n"
    "  - kind: flows\n"
    "    flows: [ { src: h0, dst: h5, size: 1MiB, start: 0us } ]\n"
    "  - kind: permutation\n"
    "    pattern: shift\n"
    "    shift: 4\n"
    "    size: 16MiB\n"
    "  - kind: incast\n"
    "    senders: [h1, h2, h3]\n"
    "    receiver: h0\n"
    "    size: 4MiB\n"
    "  - kind: alltoall\n"
    "    size: 1MiB\n"
    "  - kind: poisson\n"
    "    load: 0.8\n"
    "    packet: 4096B\n"
    "    senders: 8\n"
    "    receiver: h0\n"
    "    duration: 2ms\n"
    "  - kind: allreduce\n"
    "    size: 256MiB\n"
    "    ranks: all\n"
    "    algorithm: ring\n"
    "    jobs: 1\n"
    "    repeat: 1\n"
    "events:\n"
    "  - { at: 100us, link_down: leaf1-spine2 }\n"
    "  - { at: 5ms, link_up: leaf1-spine2 }\n"
    "  - { at: 50us, host_stall: h3, for: 10ms }\n";

static int load(struct scenario *sc, const char *yaml, const char *const *sets, size_t nsets,
                struct diag *d) {
    return scenario_load_string(sc, yaml, "s.yaml", sets, nsets, d);
}

static void load_ok(struct scenario *sc, const char *yaml, const char *const *sets, size_t nsets) {
    struct diag d;
    int rc = load(sc, yaml, sets, nsets, &d);
    if (rc) {
        diag_print(&d, stderr);
        fail_msg("scenario did not load");
    }
}

/* Defaults ---------------------------------------------------------------- */

static void test_defaults_infiniband(void **state) {
    (void)state;
    struct scenario sc;
    load_ok(&sc, "{}\n", NULL, 0);
    assert_string_equal(sc.name, "s");
    assert_int_equal(sc.seed, 1);
    assert_int_equal(sc.stop_ps, 0);
    const struct fabric_params *f = &sc.fabric;
    assert_int_equal(f->kind, FABRIC_INFINIBAND);
    assert_int_equal(f->link_bps, 400000000000ull);
    assert_int_equal(f->mtu_bytes, 4096);
    assert_int_equal(f->overhead_bytes, 26);
    assert_int_equal(f->cable_mm, 5000);
    assert_int_equal(f->propagation_ps, 25 * PS_NS);
    assert_int_equal(f->switch_latency_ps, 200 * PS_NS);
    assert_int_equal(f->buffer_bytes, MIB);
    assert_int_equal(f->flow_control, FLOWCTL_CREDIT);
    assert_int_equal(f->routing, ROUTING_STATIC);
    assert_int_equal(f->routing_engine, ENGINE_FTREE);
    assert_null(f->lft_file);
    assert_int_equal(f->congestion_control, CC_NONE);
    assert_int_equal(f->pfc.xoff_bytes, 200 * KIB);
    assert_int_equal(f->pfc.xon_bytes, 150 * KIB);
    assert_true(f->pfc.headroom_auto);
    assert_int_equal(f->pfc.watchdog_ps, 100 * PS_MS);
    assert_int_equal(f->ecn.kmin_bytes, 150 * KIB);
    assert_int_equal(f->ecn.kmax_bytes, 1500 * KIB);
    assert_true(f->ecn.pmax == 0.2);
    assert_true(f->dcqcn.g == 5.0 / 1024.0);
    assert_int_equal(f->dcqcn.alpha_period_ps, 1 * PS_US);
    assert_int_equal(f->dcqcn.rate_reduce_period_ps, 4 * PS_US);
    assert_int_equal(f->dcqcn.timer_ps, 300 * PS_US);
    assert_int_equal(f->dcqcn.byte_counter_bytes, 32767); /* rpg_byte_reset, on (A12) */
    assert_int_equal(f->dcqcn.byte_counter_unit, DCQCN_BYTES);
    assert_false(f->dcqcn.clamp_tgt_rate);
    assert_true(f->dcqcn.clamp_after_time_inc);
    assert_int_equal(f->dcqcn.min_dec_fac_pct, 50);
    assert_int_equal(f->dcqcn.rpg_gd, 11);
    assert_int_equal(f->dcqcn.fast_recovery_steps, 1);
    assert_int_equal(f->dcqcn.rai_bps, 5000000);
    assert_int_equal(f->dcqcn.rhai_bps, 50000000);
    assert_int_equal(f->dcqcn.cnp_interval_ps, 4 * PS_US);
    assert_int_equal(f->dcqcn.min_rate_bps, 1000000);
    assert_int_equal(f->transport.retransmit, RETX_GO_BACK_N);
    /* NCCL_IB_TIMEOUT 20: 4.096 us x 2^20 = 4.294967296 s; 7 retries (A12) */
    assert_int_equal(f->transport.timeout_ps, 4096000ULL << 20);
    assert_int_equal(f->transport.timeout_exp, 20);
    assert_int_equal(f->transport.retry_cnt, 7);
    assert_int_equal(f->transport.rto, RTO_IBA);
    assert_int_equal(f->transport.ack_every, 1);
    assert_int_equal(f->reorder_buffer_bytes, 256 * KIB);
    assert_false(f->sharp);
    assert_int_equal(f->control_plane.kind, CP_SM);
    assert_int_equal(f->control_plane.detect_ps, 1 * PS_US);
    const struct topo_params *t = &sc.topo;
    assert_int_equal(t->kind, TOPO_LEAF_SPINE);
    assert_int_equal(t->leaves, 4);
    assert_int_equal(t->spines, 4);
    assert_int_equal(t->hosts_per_leaf, 4);
    assert_int_equal(t->uplinks_per_spine, 1);
    assert_int_equal(t->gpus_per_host, 1);
    assert_int_equal(t->nvlink_bps, 3600000000000ull);
    assert_int_equal(scenario_host_count(t), 16);
    assert_int_equal(sc.nworkload, 0);
    assert_int_equal(sc.nevents, 0);
    assert_int_equal(sc.output.sample_ps, 0);
    scenario_fini(&sc);
}

static void test_defaults_roce(void **state) {
    (void)state;
    struct scenario sc;
    load_ok(&sc, "fabric:\n  kind: roce\n  mtu: 1024\n", NULL, 0);
    const struct fabric_params *f = &sc.fabric;
    assert_int_equal(f->kind, FABRIC_ROCE);
    assert_int_equal(f->link_bps, 400000000000ull);
    assert_int_equal(f->mtu_bytes, 1024);
    assert_int_equal(f->overhead_bytes, 82); /* whatever the MTU */
    assert_int_equal(f->switch_latency_ps, 300 * PS_NS);
    assert_int_equal(f->buffer_bytes, 2 * MIB);
    assert_int_equal(f->flow_control, FLOWCTL_PFC);
    assert_int_equal(f->routing, ROUTING_ECMP);
    assert_int_equal(f->congestion_control, CC_DCQCN);
    assert_int_equal(f->control_plane.kind, CP_BGP);
    assert_int_equal(f->control_plane.detect_ps, 9 * PS_MS * 1000); /* hold timer */
    assert_int_equal(f->propagation_ps, 25 * PS_NS);
    scenario_fini(&sc);

    /* detect follows the control plane's kind, not the fabric's */
    load_ok(&sc, "fabric: {kind: roce, control_plane: {kind: sm}}\n", NULL, 0);
    assert_int_equal(sc.fabric.control_plane.kind, CP_SM);
    assert_int_equal(sc.fabric.control_plane.detect_ps, 1 * PS_US);
    scenario_fini(&sc);
}

/* Every key of the SPEC.md example ----------------------------------------- */

static void test_spec_example(void **state) {
    (void)state;
    struct scenario sc;
    load_ok(&sc, SPEC_EXAMPLE, NULL, 0);
    assert_string_equal(sc.name, "incast-ib");
    assert_int_equal(sc.seed, 1);
    assert_int_equal(sc.stop_ps, 10 * PS_MS);
    const struct fabric_params *f = &sc.fabric;
    assert_int_equal(f->link_bps, 400000000000ull);
    assert_int_equal(f->mtu_bytes, 4096);
    assert_int_equal(f->cable_mm, 5000);
    assert_int_equal(f->propagation_ps, 25000);
    assert_int_equal(f->switch_latency_ps, 200000);
    assert_int_equal(f->buffer_bytes, 1048576);
    assert_int_equal(f->pfc.xoff_bytes, 204800);
    assert_int_equal(f->pfc.xon_bytes, 153600);
    assert_false(f->pfc.headroom_auto);
    assert_int_equal(f->pfc.headroom_bytes, 102400);
    assert_int_equal(f->pfc.watchdog_ps, 100000000000ull);
    assert_int_equal(f->ecn.kmin_bytes, 153600);
    assert_int_equal(f->ecn.kmax_bytes, 1536000);
    assert_true(f->ecn.pmax == 0.2);
    assert_true(f->dcqcn.g == 0.00390625);
    assert_int_equal(f->dcqcn.alpha_period_ps, 55000000);
    assert_int_equal(f->dcqcn.rate_reduce_period_ps, 50000000);
    assert_int_equal(f->dcqcn.timer_ps, 55000000);
    assert_int_equal(f->dcqcn.byte_counter_bytes, 10000000);
    assert_int_equal(f->dcqcn.fast_recovery_steps, 5);
    assert_int_equal(f->dcqcn.rai_bps, 40000000);
    assert_int_equal(f->dcqcn.rhai_bps, 200000000);
    assert_int_equal(f->dcqcn.cnp_interval_ps, 50000000);
    assert_int_equal(f->dcqcn.min_rate_bps, 1000000);
    assert_int_equal(f->transport.timeout_ps, 100000000);
    assert_int_equal(f->reorder_buffer_bytes, 262144);
    assert_int_equal(f->control_plane.detect_ps, 1000000);
    assert_int_equal(sc.topo.nvlink_bps, 3600000000000ull);

    assert_int_equal(sc.nworkload, 6);
    const struct wl_entry *w = sc.workload;
    assert_int_equal(w[0].kind, WL_FLOWS);
    assert_int_equal(w[0].nflows, 1);
    assert_int_equal(w[0].flows[0].src, 0);
    assert_int_equal(w[0].flows[0].dst, 5);
    assert_int_equal(w[0].flows[0].size_bytes, 1048576);
    assert_int_equal(w[0].flows[0].start_ps, 0);
    assert_int_equal(w[0].pos.line, 44);
    assert_int_equal(w[0].pos.col, 5);
    assert_int_equal(w[1].kind, WL_PERMUTATION);
    assert_int_equal(w[1].pattern, PERM_SHIFT);
    assert_int_equal(w[1].shift, 4);
    assert_int_equal(w[1].size_bytes, 16777216);
    assert_int_equal(w[2].kind, WL_INCAST);
    assert_int_equal(w[2].nsenders, 3);
    assert_int_equal(w[2].senders[0], 1);
    assert_int_equal(w[2].senders[2], 3);
    assert_int_equal(w[2].receiver, 0);
    assert_int_equal(w[2].size_bytes, 4194304);
    assert_int_equal(w[3].kind, WL_ALLTOALL);
    assert_int_equal(w[3].size_bytes, 1048576);
    assert_int_equal(w[4].kind, WL_POISSON);
    assert_true(w[4].load == 0.8);
    assert_int_equal(w[4].packet_bytes, 4096);
    assert_false(w[4].exponential);
    assert_int_equal(w[4].nsenders, 8); /* the first 8 hosts other than h0 */
    assert_int_equal(w[4].senders[0], 1);
    assert_int_equal(w[4].senders[7], 8);
    assert_int_equal(w[4].duration_ps, 2 * PS_MS);
    assert_int_equal(w[5].kind, WL_ALLREDUCE);
    assert_int_equal(w[5].size_bytes, 268435456);
    assert_int_equal(w[5].nsizes, 1);
    assert_int_equal(w[5].sizes[0], 268435456);
    assert_true(w[5].ranks_all);
    assert_int_equal(w[5].algorithm, ALGO_RING);
    assert_int_equal(w[5].jobs, 1);
    assert_int_equal(w[5].repeat, 1);

    assert_int_equal(sc.nevents, 3);
    assert_int_equal(sc.events[0].kind, EV_LINK_DOWN);
    assert_int_equal(sc.events[0].at_ps, 100 * PS_US);
    assert_string_equal(sc.events[0].target, "leaf1-spine2");
    assert_int_equal(sc.events[1].kind, EV_LINK_UP);
    assert_int_equal(sc.events[1].at_ps, 5 * PS_MS);
    assert_int_equal(sc.events[2].kind, EV_HOST_STALL);
    assert_string_equal(sc.events[2].target, "h3");
    assert_int_equal(sc.events[2].for_ps, 10 * PS_MS);
    assert_int_equal(sc.events[2].pos.line, 71);
    assert_int_equal(sc.events[2].pos.col, 5);
    scenario_fini(&sc);
}

static void test_topologies(void **state) {
    (void)state;
    struct scenario sc;
    load_ok(&sc, "topology: {kind: fat_tree}\n", NULL, 0);
    assert_int_equal(sc.topo.k, 8);
    assert_int_equal(scenario_host_count(&sc.topo), 128);
    scenario_fini(&sc);
    load_ok(&sc, "topology:\n  fat_tree: {k: 4}\n", NULL, 0);
    assert_int_equal(sc.topo.kind, TOPO_FAT_TREE);
    assert_int_equal(sc.topo.k, 4);
    assert_int_equal(scenario_host_count(&sc.topo), 16);
    scenario_fini(&sc);
    load_ok(&sc, "topology:\n  ring: {switches: 6, hosts_per_switch: 2}\n", NULL, 0);
    assert_int_equal(sc.topo.kind, TOPO_RING);
    assert_int_equal(sc.topo.ring_switches, 6);
    assert_int_equal(scenario_host_count(&sc.topo), 12);
    scenario_fini(&sc);
    load_ok(&sc, "topology: {kind: ring}\n", NULL, 0);
    assert_int_equal(sc.topo.ring_switches, 5);
    assert_int_equal(sc.topo.ring_hosts_per_switch, 1);
    scenario_fini(&sc);
    load_ok(&sc, "topology: {single_switch: {hosts: 3}}\n", NULL, 0);
    assert_int_equal(sc.topo.kind, TOPO_SINGLE_SWITCH);
    assert_int_equal(scenario_host_count(&sc.topo), 3);
    scenario_fini(&sc);
    load_ok(&sc, "topology: {kind: single_switch}\n", NULL, 0);
    assert_int_equal(scenario_host_count(&sc.topo), 8);
    scenario_fini(&sc);
    load_ok(&sc, "topology: {kind: rail_optimized}\n", NULL, 0);
    assert_int_equal(sc.topo.hosts, 16);
    assert_int_equal(sc.topo.gpus_per_host, 8);
    assert_int_equal(sc.topo.spines, 8);
    scenario_fini(&sc);
    load_ok(&sc, "topology:\n  rail_optimized: {hosts: 4, gpus_per_host: 2, spines: 2}\n", NULL, 0);
    assert_int_equal(sc.topo.kind, TOPO_RAIL_OPTIMIZED);
    assert_int_equal(sc.topo.hosts, 4);
    assert_int_equal(sc.topo.gpus_per_host, 2);
    assert_int_equal(sc.topo.spines, 2);
    scenario_fini(&sc);
}

static void test_workload_forms(void **state) {
    (void)state;
    struct scenario sc;
    load_ok(&sc,
            "topology: {kind: rail_optimized, hosts: 4, gpus_per_host: 8}\n"
            "workload:\n"
            "  - {kind: allgather, size: [1MiB, 4MiB, 1GiB], ranks: [h0.g1, h3.g7], start: 1ms}\n"
            "  - {kind: broadcast, size: 1KiB, ranks: gpus, algorithm: nvls, jobs: 2}\n"
            "  - {kind: reducescatter, size: 1KiB, ranks: [h1, h2, h3]}\n"
            "  - {kind: poisson, load: 1, mean: 4096B, senders: [h2, h3], receiver: h1,\n"
            "     duration: 10us}\n"
            "  - {kind: incast, senders: 2, receiver: h1, size: 1MB}\n"
            "  - {kind: permutation, pattern: random, size: 1B}\n"
            "fabric: {routing_engine: file, lft_file: /tmp/lfts.dump, propagation: 30ns,\n"
            "         pfc: {headroom: 64KiB}}\n"
            "output: {sample: 10us}\n",
            NULL, 0);
    const struct wl_entry *w = sc.workload;
    assert_int_equal(w[0].kind, WL_ALLGATHER);
    assert_int_equal(w[0].nsizes, 3);
    assert_int_equal(w[0].sizes[2], 1073741824ull);
    assert_int_equal(w[0].size_bytes, 1048576);
    assert_int_equal(w[0].start_ps, 1 * PS_MS);
    assert_true(w[0].ranks_are_gpu_ids);
    assert_int_equal(w[0].nranks, 2);
    assert_int_equal(w[0].ranks[0], 1);
    assert_int_equal(w[0].ranks[1], 3 * 8 + 7);
    assert_true(w[1].ranks_gpus);
    assert_int_equal(w[1].algorithm, ALGO_NVLS);
    assert_int_equal(w[1].jobs, 2);
    assert_false(w[2].ranks_are_gpu_ids);
    assert_int_equal(w[2].nranks, 3);
    assert_true(w[3].exponential);
    assert_int_equal(w[3].packet_bytes, 4096);
    assert_true(w[3].load == 1.0);
    assert_int_equal(w[4].nsenders, 2);
    assert_int_equal(w[4].senders[0], 0);
    assert_int_equal(w[4].senders[1], 2); /* skips the receiver h1 */
    assert_int_equal(w[4].size_bytes, 1000000);
    assert_int_equal(w[5].pattern, PERM_RANDOM);
    assert_int_equal(sc.fabric.routing_engine, ENGINE_FILE);
    assert_string_equal(sc.fabric.lft_file, "/tmp/lfts.dump");
    assert_int_equal(sc.fabric.propagation_ps, 30 * PS_NS);
    assert_int_equal(sc.fabric.cable_mm, 6000);
    assert_false(sc.fabric.pfc.headroom_auto);
    assert_int_equal(sc.fabric.pfc.headroom_bytes, 64 * KIB);
    assert_int_equal(sc.output.sample_ps, 10 * PS_US);
    scenario_fini(&sc);
}

/* --set ------------------------------------------------------------------- */

static void test_set_overrides(void **state) {
    (void)state;
    struct scenario sc;
    const char *sets[] = {
        "fabric.routing=ecmp",       "workload.0.size=64MiB", "workload.1.flows.0.size=512KiB",
        "fabric.pfc.xoff=300KiB",  /* creates fabric.pfc */
        "fabric.dcqcn.timer=55us", /* creates fabric.dcqcn */
        "seed=18446744073709551615", "events.0.at=1ms",       "name=swept",
    };
    load_ok(&sc,
            "fabric:\n  link: 200Gbps\n"
            "workload:\n"
            "  - {kind: alltoall, size: 1MiB}\n"
            "  - kind: flows\n"
            "    flows: [{src: h0, dst: h1, size: 1MiB}]\n"
            "events: [{at: 1us, link_down: leaf0-spine0}]\n",
            sets, sizeof sets / sizeof sets[0]);
    assert_int_equal(sc.fabric.routing, ROUTING_ECMP);
    assert_int_equal(sc.fabric.link_bps, 200000000000ull);
    assert_int_equal(sc.workload[0].size_bytes, 64 * MIB);
    assert_int_equal(sc.workload[1].flows[0].size_bytes, 512 * KIB);
    assert_int_equal(sc.fabric.pfc.xoff_bytes, 300 * KIB);
    assert_int_equal(sc.fabric.pfc.xon_bytes, 150 * KIB);
    assert_int_equal(sc.fabric.dcqcn.timer_ps, 55 * PS_US);
    assert_int_equal(sc.seed, UINT64_MAX);
    assert_int_equal(sc.events[0].at_ps, 1 * PS_MS);
    assert_string_equal(sc.name, "swept");
    scenario_fini(&sc);

    /* a whole mapping replaced by a YAML value */
    const char *ring[] = {"topology={kind: ring}"};
    load_ok(&sc, "topology: {leaves: 2}\n", ring, 1);
    assert_int_equal(sc.topo.kind, TOPO_RING);
    assert_int_equal(scenario_host_count(&sc.topo), 5);
    scenario_fini(&sc);

    /* a null block becomes a mapping */
    const char *into_null[] = {"fabric.kind=roce"};
    load_ok(&sc, "fabric:\nseed: 3\n", into_null, 1);
    assert_int_equal(sc.fabric.kind, FABRIC_ROCE);
    assert_int_equal(sc.seed, 3);
    scenario_fini(&sc);
}

/* Keys added for the model's modules --------------------------------------- */

/* Every default equals what the module does with 0 (or its documented
 * default), so scenarios that do not give the key run as before. */
static void test_module_defaults(void **state) {
    (void)state;
    struct scenario sc;
    load_ok(&sc,
            "workload:\n"
            "  - {kind: allreduce, size: 1MiB}\n"
            "  - {kind: training, size: 100MiB}\n"
            "  - {kind: alltoall, size: 1MiB}\n",
            NULL, 0);
    const struct fabric_params *f = &sc.fabric;
    assert_int_equal(f->ib.vls, 4);
    assert_int_equal(f->ib.vl_buffer_bytes, 0); /* auto: buffer / vls */
    assert_int_equal(f->ib.nic_buffer_bytes, 0);
    assert_int_equal(f->ib.credit_interval_ps, 256 * PS_NS);
    assert_int_equal(f->ib.credit_refresh_ps, 0); /* auto */
    assert_false(f->ib.sl2vl_set);
    assert_int_equal(f->ib.nvlarb_high, 0);
    assert_int_equal(f->ib.nvlarb_low, 0);
    assert_int_equal(f->ib.high_limit, 255);
    assert_int_equal(f->deadlock_timeout_ps, 100 * PS_US);
    assert_int_equal(f->reorder_window_pkts, 1024);
    assert_false(f->ecmp_same_seed);
    assert_int_equal(f->sharp_jobs_per_switch, 2);
    assert_int_equal(f->sharp_buffer_bytes, 256 * KIB);
    assert_int_equal(f->sharp_pos.line, 0);
    assert_int_equal(f->control_plane.smp_ps, 23600 * PS_NS);
    assert_int_equal(f->control_plane.sweep_fixed_ps, 18500 * PS_US);
    assert_false(f->control_plane.shield);
    assert_int_equal(f->control_plane.shield_delay_ps, 10 * PS_US);
    assert_int_equal(f->transport.qps_per_connection, 1);
    assert_false(f->pfc.dynamic);
    assert_int_equal(f->pfc.alpha_shift, 3);
    assert_int_equal(f->pfc.resume_offset_bytes, 3000);
    assert_int_equal(f->pfc.watchdog_ps, 100 * PS_MS);
    assert_int_equal(f->dcqcn.preset, DCQCN_PRESET_CONNECTX);
    const struct wl_entry *ar = &sc.workload[0], *tr = &sc.workload[1];
    assert_int_equal(ar->priority, 0);
    assert_int_equal(ar->channels, 0); /* auto: 2 per NIC (coll.c) */
    assert_int_equal(ar->slice_bytes, 512 * KIB);
    assert_int_equal(ar->step_overhead_ps, 0); /* auto: NCCL's per-step costs (coll/algos.c) */
    assert_int_equal(tr->kind, WL_TRAINING);
    assert_int_equal(tr->size_bytes, 100 * MIB);
    assert_int_equal(tr->iterations, 3);
    assert_int_equal(tr->bucket_bytes, 25 * MIB);
    assert_int_equal(tr->forward_ps, 0);
    assert_int_equal(tr->backward_ps, 0);
    assert_int_equal(tr->algorithm, ALGO_RING);
    assert_int_equal(tr->jobs, 1);
    assert_int_equal(tr->channels, 0);
    assert_int_equal(sc.workload[2].priority, 0);
    scenario_fini(&sc);

    load_ok(&sc, "fabric: {kind: roce, pfc: {watchdog: 0s}}\n", NULL, 0);
    assert_int_equal(sc.fabric.pfc.watchdog_ps, 0); /* off (labs use it) */
    assert_int_equal(sc.fabric.control_plane.proc_ps, 1 * PS_MS);
    assert_int_equal(sc.fabric.control_plane.mrai_ps, 0);
    assert_int_equal(sc.fabric.ib.vls, 0); /* InfiniBand keys stay at "model default" */
    scenario_fini(&sc);
}

static void test_module_keys(void **state) {
    (void)state;
    struct scenario sc;
    load_ok(&sc,
            "fabric:\n"
            "  vls: 2\n"
            "  vl_buffer: 128KiB\n"
            "  nic_buffer: 64KiB\n"
            "  credit_interval: 1us\n"
            "  credit_refresh: 20us\n"
            "  sl2vl: [1, 0, 1]\n"
            "  vlarb_high: [{vl: 1, weight: 32}]\n"
            "  vlarb_low: [{vl: 0, weight: 64}, {vl: 1, weight: 0}]\n"
            "  vlarb_high_limit: 4\n"
            "  deadlock_timeout: 50us\n"
            "  reorder_window: 256\n"
            "  ecmp_same_seed: true\n"
            "  sharp: true\n"
            "  sharp_jobs_per_switch: 3\n"
            "  sharp_buffer: 1MiB\n"
            "  transport: {qps_per_connection: 4}\n"
            "  pfc: {dynamic: true, alpha_shift: 1, resume_offset: 6KB, watchdog: 0s}\n"
            "  control_plane: {smp_time: 10us, sweep_fixed: 2ms, shield: true, shield_delay: 5us}\n"
            "workload:\n"
            "  - {kind: allreduce, size: 1MiB, priority: 3, channels: 4, slice: 128KiB,\n"
            "     step_overhead: 2us, algorithm: hierarchical}\n"
            "  - {kind: training, size: 64MiB, iterations: 2, forward: 1ms, backward: 6ms,\n"
            "     bucket: 16MiB, channels: 1, jobs: 2, ranks: all, algorithm: sharp}\n"
            "  - {kind: incast, priority: 1, senders: 2, receiver: h0, size: 1MiB}\n",
            NULL, 0);
    const struct fabric_params *f = &sc.fabric;
    assert_int_equal(f->ib.vls, 2);
    assert_int_equal(f->ib.vl_buffer_bytes, 128 * KIB);
    assert_int_equal(f->ib.nic_buffer_bytes, 64 * KIB);
    assert_int_equal(f->ib.credit_interval_ps, 1 * PS_US);
    assert_int_equal(f->ib.credit_refresh_ps, 20 * PS_US);
    assert_true(f->ib.sl2vl_set);
    static const uint8_t SL2VL[16] = {1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
    assert_memory_equal(f->ib.sl2vl, SL2VL, 16);
    assert_int_equal(f->ib.nvlarb_high, 1);
    assert_int_equal(f->ib.vlarb_high[0].vl, 1);
    assert_int_equal(f->ib.vlarb_high[0].weight, 32);
    assert_int_equal(f->ib.nvlarb_low, 2);
    assert_int_equal(f->ib.vlarb_low[0].weight, 64);
    assert_int_equal(f->ib.vlarb_low[1].vl, 1);
    assert_int_equal(f->ib.vlarb_low[1].weight, 0);
    assert_int_equal(f->ib.high_limit, 4);
    assert_int_equal(f->deadlock_timeout_ps, 50 * PS_US);
    assert_int_equal(f->reorder_window_pkts, 256);
    assert_true(f->ecmp_same_seed);
    assert_true(f->sharp);
    assert_int_equal(f->sharp_pos.line, 14); /* where `sharp:` is, for the RoCE error */
    assert_int_equal(f->sharp_pos.col, 3);
    assert_int_equal(f->sharp_jobs_per_switch, 3);
    assert_int_equal(f->sharp_buffer_bytes, 1 * MIB);
    assert_int_equal(f->transport.qps_per_connection, 4);
    assert_true(f->pfc.dynamic);
    assert_int_equal(f->pfc.alpha_shift, 1);
    assert_int_equal(f->pfc.resume_offset_bytes, 6000);
    assert_int_equal(f->pfc.watchdog_ps, 0);
    assert_int_equal(f->control_plane.smp_ps, 10 * PS_US);
    assert_int_equal(f->control_plane.sweep_fixed_ps, 2 * PS_MS);
    assert_true(f->control_plane.shield);
    assert_int_equal(f->control_plane.shield_delay_ps, 5 * PS_US);
    const struct wl_entry *ar = &sc.workload[0], *tr = &sc.workload[1];
    assert_int_equal(ar->priority, 3);
    assert_int_equal(ar->channels, 4);
    assert_int_equal(ar->slice_bytes, 128 * KIB);
    assert_int_equal(ar->step_overhead_ps, 2 * PS_US);
    assert_int_equal(ar->algorithm, ALGO_HIERARCHICAL);
    assert_int_equal(tr->iterations, 2);
    assert_int_equal(tr->forward_ps, 1 * PS_MS);
    assert_int_equal(tr->backward_ps, 6 * PS_MS);
    assert_int_equal(tr->bucket_bytes, 16 * MIB);
    assert_int_equal(tr->channels, 1);
    assert_int_equal(tr->jobs, 2);
    assert_true(tr->ranks_all);
    assert_int_equal(tr->algorithm, ALGO_SHARP); /* docs/scenario.md: training takes it (T) */
    assert_int_equal(sc.workload[2].priority, 1);
    scenario_fini(&sc);

    /* bgp keys, through --set as well */
    const char *sets[] = {"fabric.control_plane.mrai=30ms", "workload.0.priority=2",
                          "fabric.vls=1"};
    load_ok(&sc,
            "fabric: {kind: roce, control_plane: {proc: 500us}}\n"
            "workload: [{kind: alltoall, size: 1KiB}]\n",
            sets, 2);
    assert_int_equal(sc.fabric.control_plane.proc_ps, 500 * PS_US);
    assert_int_equal(sc.fabric.control_plane.mrai_ps, 30 * PS_MS);
    assert_int_equal(sc.workload[0].priority, 2);
    scenario_fini(&sc);
    load_ok(&sc, "topology: {rail_optimized: {hosts: 4, uplinks_per_spine: 2}}\n", NULL, 0);
    assert_int_equal(sc.topo.uplinks_per_spine, 2); /* topo.c builds them */
    scenario_fini(&sc);
    load_ok(&sc, "{}\n", sets + 2, 1);
    assert_int_equal(sc.fabric.ib.vls, 1);
    scenario_fini(&sc);
}

/* `dcqcn: {preset: paper}` is dcqcn_preset_paper(), ECN included; keys given
 * with it win. */
static void test_dcqcn_preset(void **state) {
    (void)state;
    struct dcqcn_params dp;
    struct ecn_params ep;
    memset(&dp, 0, sizeof dp);
    dcqcn_preset_paper(&dp, &ep);
    struct scenario sc;
    load_ok(&sc, "fabric: {kind: roce, dcqcn: {preset: paper}}\n", NULL, 0);
    const struct dcqcn_params *d = &sc.fabric.dcqcn;
    assert_int_equal(d->preset, DCQCN_PRESET_PAPER);
    assert_true(d->g == dp.g);
    assert_int_equal(d->alpha_period_ps, dp.alpha_period_ps);
    assert_int_equal(d->rate_reduce_period_ps, dp.rate_reduce_period_ps);
    assert_int_equal(d->timer_ps, dp.timer_ps);
    assert_int_equal(d->byte_counter_bytes, dp.byte_counter_bytes);
    assert_int_equal(d->fast_recovery_steps, dp.fast_recovery_steps);
    assert_int_equal(d->rai_bps, dp.rai_bps);
    assert_int_equal(d->rhai_bps, dp.rhai_bps);
    assert_int_equal(d->cnp_interval_ps, dp.cnp_interval_ps);
    assert_int_equal(d->min_rate_bps, dp.min_rate_bps);
    assert_true(d->initial_alpha == dp.initial_alpha);
    assert_int_equal(d->clamp_tgt_rate, dp.clamp_tgt_rate);
    assert_int_equal(d->clamp_after_time_inc, dp.clamp_after_time_inc);
    assert_int_equal(d->hyper_stage_scaling, dp.hyper_stage_scaling);
    assert_int_equal(d->cut_on_first_cnp, dp.cut_on_first_cnp);
    assert_int_equal(d->byte_counter_unit, dp.byte_counter_unit);
    assert_int_equal(d->min_dec_fac_pct, dp.min_dec_fac_pct);
    assert_int_equal(d->rpg_gd, dp.rpg_gd);
    assert_int_equal(sc.fabric.ecn.kmin_bytes, ep.kmin_bytes);
    assert_int_equal(sc.fabric.ecn.kmax_bytes, ep.kmax_bytes);
    assert_true(sc.fabric.ecn.pmax == ep.pmax);
    scenario_fini(&sc);

    const char *set[] = {"fabric.dcqcn.preset=paper"};
    load_ok(&sc, "fabric: {kind: roce, dcqcn: {timer: 100us}, ecn: {kmax: 400KB}}\n", set, 1);
    assert_int_equal(sc.fabric.dcqcn.timer_ps, 100 * PS_US);
    assert_int_equal(sc.fabric.dcqcn.rai_bps, dp.rai_bps);
    assert_int_equal(sc.fabric.ecn.kmax_bytes, 400000);
    assert_int_equal(sc.fabric.ecn.kmin_bytes, ep.kmin_bytes);
    scenario_fini(&sc);
}

/* Every key the tables accept is documented in docs/scenario.md (as `key`,
 * `section.key` or `fabric.block.key`). */
static void documented(const char *doc, const struct schema_table *t, const char *prefix) {
    for (size_t i = 0; i < t->nkeys; i++) {
        const struct schema_key *k = &t->keys[i];
        if (k->flags & SCHEMA_ALIAS) continue;
        char path[160], bare[80];
        snprintf(path, sizeof path, "`%s%s%s`", prefix, prefix[0] ? "." : "", k->name);
        snprintf(bare, sizeof bare, "`%s`", k->name);
        bool top = !strcmp(prefix, "fabric") || !strncmp(prefix, "fabric.", 7) ||
                   !strcmp(prefix, "topology") || !strcmp(prefix, "output");
        bool block = k->type == SCHEMA_MAP || k->type == SCHEMA_LIST;
        if (!block && !strstr(doc, path) && (top || !strstr(doc, bare)))
            fail_msg("key %s is not documented in docs/scenario.md", path);
        if (block) {
            char sub[160];
            snprintf(sub, sizeof sub, "%s%s%s", prefix, prefix[0] ? "." : "", k->name);
            documented(doc, k->sub, sub);
        }
    }
}

static void test_keys_documented(void **state) {
    (void)state;
    FILE *f = fopen("docs/scenario.md", "r");
    if (!f) f = fopen("../docs/scenario.md", "r");
    assert_non_null(f);
    static char doc[1 << 17];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    doc[n] = 0;
    fclose(f);
    documented(doc, &SCHEMA_SCENARIO, "");
}

/* Malformed scenarios ----------------------------------------------------- */

struct bad {
    const char *what;
    const char *yaml;
    const char *set; /* one --set, or NULL */
    int rc;
    const char *file; /* NULL = "s.yaml" */
    unsigned line, col;
    const char *msg; /* a substring of the message */
};

static const struct bad BAD[] = {
    {"syntax error", "fabric:\n  link: [400Gbps\nseed: 1\n", NULL, FS_EINVAL, NULL, 4, 1,
     "YAML syntax"},
    {"tab indentation", "fabric:\n\tlink: 400Gbps\n", NULL, FS_EINVAL, NULL, 2, 1, "tab"},
    {"unknown top key", "seed: 1\ntopolgy: {}\n", NULL, FS_EINVAL, NULL, 2, 1,
     "unknown key 'topolgy'; did you mean 'topology'? allowed: name, seed, stop, fabric, "
     "topology, workload, events, output"},
    {"unknown nested key", "fabric:\n  pfc:\n    xof: 1KiB\n", NULL, FS_EINVAL, NULL, 3, 5,
     "fabric.pfc: unknown key 'xof'; did you mean 'xoff'? allowed: xoff, xon, headroom"},
    {"mapping for a rate", "fabric:\n  link: {a: 1}\n", NULL, FS_EINVAL, NULL, 2, 9,
     "fabric.link: expected a rate such as 400Gbps"},
    {"text for a number", "topology:\n  leaves: four\n", NULL, FS_EINVAL, NULL, 2, 11,
     "expected a whole number, got 'four'"},
    {"list for a mapping", "fabric: [roce]\n", NULL, FS_EINVAL, NULL, 1, 9,
     "expected a mapping of fabric keys"},
    {"negative", "topology:\n  leaves: -4\n", NULL, FS_ERANGE, NULL, 2, 11, "must not be negative"},
    {"negative size", "fabric: {buffer: -1MiB}\n", NULL, FS_ERANGE, NULL, 1, 18, "negative"},
    {"overflow", "topology:\n  leaves: 99999999999999999999\n", NULL, FS_ERANGE, NULL, 2, 11,
     "too large; must be at most"},
    {"seed overflow", "seed: 18446744073709551616\n", NULL, FS_ERANGE, NULL, 1, 7, "too large"},
    {"bad unit", "fabric:\n  link: 400Gbit\n", NULL, FS_EINVAL, NULL, 2, 9,
     "unknown unit 'Gbit' in '400Gbit'"},
    {"bad enum", "fabric:\n  routing: ecm\n", NULL, FS_EINVAL, NULL, 2, 12,
     "unknown value 'ecm'; did you mean 'ecmp'? allowed: static, adaptive, ecmp, spray"},
    {"unknown host", "workload:\n  - kind: flows\n    flows: [{src: h0, dst: h99, size: 1MiB}]\n",
     NULL, FS_EINVAL, NULL, 3, 28, "unknown host 'h99'; this fabric has 16 hosts (h0..h15)"},
    {"not a host", "workload:\n  - {kind: incast, senders: [leaf1], receiver: h0, size: 1B}\n",
     NULL, FS_EINVAL, NULL, 2, 30, "'leaf1' is not a host name"},
    {"zero leaves", "topology:\n  leaves: 0\n", NULL, FS_ERANGE, NULL, 2, 11, "at least 1"},
    {"odd fat-tree k", "topology:\n  fat_tree: {k: 7}\n", NULL, FS_EINVAL, NULL, 2, 17,
     "k must be even"},
    {"fat-tree k < 2", "topology: {kind: fat_tree, k: 1}\n", NULL, FS_ERANGE, NULL, 1, 31,
     "at least 2"},
    {"ring < 3 switches", "topology: {kind: ring, switches: 2}\n", NULL, FS_ERANGE, NULL, 1, 34,
     "at least 3"},
    {"too many hosts", "topology: {leaves: 2048, hosts_per_leaf: 1024}\n", NULL, FS_ERANGE, NULL, 1,
     11, "at most 1048576"},
    {"key of another kind", "topology: {kind: leaf_spine, k: 8}\n", NULL, FS_EINVAL, NULL, 1, 30,
     "key 'k' is not used by topology kind 'leaf_spine'; it belongs to: fat_tree"},
    {"two topology kinds", "topology: {kind: ring, fat_tree: {k: 4}}\n", NULL, FS_EINVAL, NULL, 1,
     24, "not used by topology kind 'ring'"},
    {"bad mtu", "fabric: {mtu: 1500}\n", NULL, FS_EINVAL, NULL, 1, 15,
     "allowed: 256, 512, 1024, 2048, 4096"},
    {"xon above xoff", "fabric:\n  pfc: {xoff: 100KiB, xon: 150KiB}\n", NULL, FS_EINVAL, NULL, 2,
     28, "xon (150KiB) is above xoff (100KiB)"},
    {"kmin above kmax", "fabric:\n  ecn: {kmin: 2MiB}\n", NULL, FS_EINVAL, NULL, 2, 15,
     "kmin (2MiB) is above kmax (1500KiB)"},
    {"pmax above 1", "fabric:\n  ecn: {pmax: 1.5}\n", NULL, FS_ERANGE, NULL, 2, 15, "[0, 1]"},
    {"load 0",
     "workload:\n  - {kind: poisson, load: 0, packet: 1KiB, senders: 1, receiver: h0, "
     "duration: 1ms}\n",
     NULL, FS_ERANGE, NULL, 2, 27, "(0, 1]"},
    {"flow src == dst", "workload:\n  - kind: flows\n    flows: [{src: h2, dst: h2, size: 1B}]\n",
     NULL, FS_EINVAL, NULL, 3, 28, "src and dst are both h2"},
    {"empty file", "", NULL, FS_EINVAL, NULL, 1, 1, "empty scenario file; expected a mapping"},
    {"comments only", "# nothing here\n\n", NULL, FS_EINVAL, NULL, 1, 1, "empty scenario file"},
    {"binary garbage",
     "\x7f"
     "ELF\x02\x01\x01",
     NULL, FS_EINVAL, NULL, 1, 1, "not a text file"},
    {"invalid UTF-8", "name: ok\nseed: \xff\xfe\n", NULL, FS_EINVAL, NULL, 2, 7,
     "invalid UTF-8 byte 0xff"},
    {"duplicate key", "seed: 1\nstop: 1ms\nseed: 2\n", NULL, FS_EINVAL, NULL, 3, 1,
     "duplicate key 'seed' (first given at line 1, column 1)"},
    {"root is a list", "- a\n- b\n", NULL, FS_EINVAL, NULL, 1, 1, "a scenario is a mapping"},
    {"two documents", "seed: 1\n---\nseed: 2\n", NULL, FS_EINVAL, NULL, 2, 1,
     "a second YAML document"},
    {"missing required key", "workload:\n  - kind: incast\n    receiver: h0\n    size: 1MiB\n",
     NULL, FS_EINVAL, NULL, 2, 5, "missing required key 'senders' in this workload entry"},
    {"missing kind", "workload:\n  - {size: 1MiB}\n", NULL, FS_EINVAL, NULL, 2, 5,
     "missing required key 'kind'"},
    {"unknown workload kind", "workload:\n  - {kind: allreduc, size: 1MiB}\n", NULL, FS_EINVAL,
     NULL, 2, 12, "did you mean 'allreduce'?"},
    {"GPU name without GPUs",
     "workload:\n  - {kind: allreduce, size: 1MiB, ranks: [h0.g1, h1.g0]}\n", NULL, FS_EINVAL, NULL,
     2, 43, "gpus_per_host is 1"},
    {"repeated rank", "workload:\n  - {kind: allreduce, size: 1MiB, ranks: [h0, h1, h0]}\n", NULL,
     FS_EINVAL, NULL, 2, 51, "'h0' is listed twice"},
    {"receiver among senders",
     "workload:\n  - {kind: incast, senders: [h1, h0], receiver: h0, size: 1B}\n", NULL, FS_EINVAL,
     NULL, 2, 34, "the receiver h0 is also listed as a sender"},
    {"too many senders", "workload:\n  - {kind: incast, senders: 16, receiver: h0, size: 1B}\n",
     NULL, FS_EINVAL, NULL, 2, 29, "16 senders asked for, but this fabric has only 15"},
    {"size list outside collectives", "workload:\n  - {kind: alltoall, size: [1B, 2B]}\n", NULL,
     FS_EINVAL, NULL, 2, 28, "only for collectives"},
    {"shift onto itself", "workload:\n  - {kind: permutation, shift: 16, size: 1B}\n", NULL,
     FS_EINVAL, NULL, 2, 32, "sends every host to itself"},
    {"packet and mean",
     "workload:\n  - {kind: poisson, load: 0.5, packet: 1KiB, mean: 1KiB,\n"
     "     senders: 1, receiver: h0, duration: 1ms}\n",
     NULL, FS_EINVAL, NULL, 2, 52, "not both"},
    {"event with two actions", "events:\n  - {at: 1us, link_down: leaf0-spine0, link_up: a-b}\n",
     NULL, FS_EINVAL, NULL, 2, 40, "has both 'link_down' and 'link_up'"},
    {"event stalls unknown host", "events:\n  - {at: 1us, host_stall: h16, for: 1ms}\n", NULL,
     FS_EINVAL, NULL, 2, 27, "unknown host 'h16'"},
    {"for on a link event", "events:\n  - {at: 1us, link_up: leaf0-spine0, for: 1ms}\n", NULL,
     FS_EINVAL, NULL, 2, 38, "not used by event kind 'link_up'"},
    {"cable and propagation", "fabric: {cable: 3m, propagation: 10ns}\n", NULL, FS_EINVAL, NULL, 1,
     34, "either cable"},
    {"file engine without lft_file", "fabric: {routing_engine: file}\n", NULL, FS_EINVAL, NULL, 1,
     26, "needs fabric.lft_file"},
    {"undefined alias", "seed: *nope\n", NULL, FS_EINVAL, NULL, 1, 7, "alias '*nope'"},
    {"bad bool", "fabric: {sharp: yes}\n", NULL, FS_EINVAL, NULL, 1, 17, "expected true or false"},
    {"--set unknown key", "seed: 1\n", "fabric.rouitng=ecmp", FS_EINVAL, "--set", 1, 8,
     "fabric: unknown key 'rouitng'; did you mean 'routing'?"},
    {"--set top-level typo", "seed: 1\n", "sede=4", FS_EINVAL, "--set", 1, 1,
     "did you mean 'seed'?"},
    {"--set bad value", "seed: 1\n", "fabric.link=400Gbit", FS_EINVAL, "--set", 1, 13,
     "unknown unit 'Gbit'"},
    {"--set past the end", "workload:\n  - {kind: alltoall, size: 1B}\n", "workload.3.size=1MiB",
     FS_EINVAL, "--set", 1, 10, "index 3 is past the end of 'workload' (1 entry)"},
    {"--set into a value", "fabric: {link: 400Gbps}\n", "fabric.link.x=1", FS_EINVAL, "--set", 1,
     13, "is a single value"},
    {"--set without =", "seed: 1\n", "seed", FS_EINVAL, "--set", 1, 1, "expected KEY=VALUE"},
    {"--set syntax", "seed: 1\n", "topology={kind: ring", FS_EINVAL, "--set", 1, 21, "YAML syntax"},
    {"vls above the classes", "fabric:\n  vls: 5\n", NULL, FS_ERANGE, NULL, 2, 8, "at most 4"},
    {"vls on roce", "fabric: {kind: roce, vls: 2}\n", NULL, FS_EINVAL, NULL, 1, 22,
     "key 'vls' is not used by fabric kind 'roce'"},
    {"sl2vl beyond vls", "fabric:\n  vls: 2\n  sl2vl: [0, 1, 2]\n", NULL, FS_ERANGE, NULL, 3, 17,
     "SL 2 maps to VL 2, but only VLs 0..1 are in use"},
    {"sl2vl too long", "fabric: {sl2vl: [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}\n", NULL, FS_EINVAL,
     NULL, 1, 17, "1 to 16 entries"},
    {"sl2vl scalar", "fabric: {sl2vl: 3}\n", NULL, FS_EINVAL, NULL, 1, 17,
     "expected auto or a list"},
    {"vlarb weight", "fabric:\n  vlarb_low: [{vl: 0, weight: 300}]\n", NULL, FS_ERANGE, NULL, 2, 31,
     "fabric.vlarb_low.0.weight: '300' is too large; must be at most 255"},
    {"vlarb unused VL", "fabric: {vls: 1, vlarb_high: [{vl: 1, weight: 1}]}\n", NULL, FS_ERANGE,
     NULL, 1, 36, "VL 1 is not in use"},
    {"vlarb entry key", "fabric: {vlarb_high: [{vl: 0, wieght: 1}]}\n", NULL, FS_EINVAL, NULL, 1,
     31, "did you mean 'weight'?"},
    {"high limit 0", "fabric: {vlarb_high_limit: 0}\n", NULL, FS_ERANGE, NULL, 1, 28, "at least 1"},
    {"vl_buffer below a packet", "fabric:\n  vl_buffer: 2KiB\n", NULL, FS_EINVAL, NULL, 2, 14,
     "cannot hold one packet"},
    {"buffer split below a packet", "fabric: {buffer: 8KiB}\n", NULL, FS_EINVAL, NULL, 1, 18,
     "a credit buffer of 2KiB per VL"},
    {"vl_buffer word", "fabric: {vl_buffer: lots}\n", NULL, FS_EINVAL, NULL, 1, 21, "size"},
    {"credit_interval 0", "fabric: {credit_interval: 0}\n", NULL, FS_ERANGE, NULL, 1, 27,
     "at least"},
    {"credit_refresh 0", "fabric: {credit_refresh: 0s}\n", NULL, FS_ERANGE, NULL, 1, 26,
     "at least"},
    {"deadlock_timeout 0", "fabric: {deadlock_timeout: 0}\n", NULL, FS_ERANGE, NULL, 1, 28,
     "at least"},
    {"reorder_window text", "fabric: {reorder_window: big}\n", NULL, FS_EINVAL, NULL, 1, 26,
     "whole number"},
    {"sharp jobs 0", "fabric: {sharp_jobs_per_switch: 0}\n", NULL, FS_ERANGE, NULL, 1, 33,
     "at least 1"},
    {"qps 0", "fabric:\n  transport: {qps_per_connection: 0}\n", NULL, FS_ERANGE, NULL, 2, 35,
     "at least 1"},
    {"sm key under bgp", "fabric: {kind: roce, control_plane: {shield: true}}\n", NULL, FS_EINVAL,
     NULL, 1, 38, "key 'shield' is not used by control_plane kind 'bgp'"},
    {"bgp key under sm", "fabric:\n  control_plane: {mrai: 1ms}\n", NULL, FS_EINVAL, NULL, 2, 19,
     "key 'mrai' is not used by control_plane kind 'sm'"},
    {"bad preset", "fabric: {dcqcn: {preset: papr}}\n", NULL, FS_EINVAL, NULL, 1, 26,
     "did you mean 'paper'?"},
    {"preset ecn clash", "fabric:\n  dcqcn: {preset: paper}\n  ecn: {kmin: 300KB}\n", NULL,
     FS_EINVAL, NULL, 3, 15, "above ecn.kmax (200KB) with dcqcn preset paper"},
    {"pfc dynamic word", "fabric: {pfc: {dynamic: maybe}}\n", NULL, FS_EINVAL, NULL, 1, 25,
     "true or false"},
    {"priority 4", "workload:\n  - {kind: alltoall, size: 1B, priority: 4}\n", NULL, FS_ERANGE,
     NULL, 2, 42, "at most 3"},
    {"training size list", "workload:\n  - {kind: training, size: [1MiB, 2MiB]}\n", NULL, FS_EINVAL,
     NULL, 2, 28, "only for collectives"},
    {"training repeat", "workload:\n  - {kind: training, size: 1MiB, repeat: 2}\n", NULL, FS_EINVAL,
     NULL, 2, 34, "key 'repeat' is not used by workload kind 'training'"},
    {"iterations on allreduce", "workload:\n  - {kind: allreduce, size: 1MiB, iterations: 2}\n",
     NULL, FS_EINVAL, NULL, 2, 35, "belongs to: training"},
    {"channels 0", "workload:\n  - {kind: allreduce, size: 1MiB, channels: 0}\n", NULL, FS_ERANGE,
     NULL, 2, 45, "at least 1"},
    {"channels word", "workload:\n  - {kind: allreduce, size: 1MiB, channels: many}\n", NULL,
     FS_EINVAL, NULL, 2, 45, "expected auto or a channel count 1..64, got 'many'"},
    {"--set bad priority", "workload: [{kind: alltoall, size: 1B}]\n", "workload.0.priority=9",
     FS_ERANGE, "--set", 1, 21, "at most 3"},
    {"ibcc on roce", "fabric: {kind: roce, congestion_control: ibcc}\n", NULL, FS_EINVAL, NULL, 1,
     42, "ibcc is InfiniBand congestion control"},
    {"byte_counter_unit", "fabric: {kind: roce, dcqcn: {byte_counter_unit: 32B}}\n", NULL,
     FS_EINVAL, NULL, 1, 49, "allowed: bytes, 64B"},
};

static void test_malformed(void **state) {
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        const struct bad *b = &BAD[i];
        struct scenario sc;
        struct diag d;
        const char *sets[] = {b->set};
        int rc = load(&sc, b->yaml, b->set ? sets : NULL, b->set ? 1 : 0, &d);
        char got[1200];
        diag_format(&d, got, sizeof got);
        const char *file = b->file ? b->file : "s.yaml";
        if (rc != b->rc || d.line != b->line || d.col != b->col || strcmp(d.file, file) != 0 ||
            !strstr(d.msg, b->msg)) {
            print_error("case '%s': want rc %d at %s:%u:%u with '%s'\n    got rc %d: %s\n", b->what,
                        b->rc, file, b->line, b->col, b->msg, rc, got);
            failures++;
        }
        /* a failed load leaves nothing to free */
        assert_null(sc.name);
        assert_null(sc.workload);
        scenario_fini(&sc);
    }
    assert_int_equal(failures, 0);
}

/* Files ------------------------------------------------------------------- */

static void test_files(void **state) {
    (void)state;
    char dir[] = "/tmp/fabsim-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/lab-3.yml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("topology: {kind: single_switch}\n", f);
    fclose(f);

    struct scenario sc;
    struct diag d;
    assert_int_equal(scenario_load(&sc, path, NULL, 0, &d), 0);
    assert_string_equal(sc.name, "lab-3");
    assert_string_equal(sc.file, path);
    scenario_fini(&sc);

    char missing[300];
    snprintf(missing, sizeof missing, "%s/nope.yaml", dir);
    assert_int_equal(scenario_load(&sc, missing, NULL, 0, &d), FS_ENOENT);
    assert_non_null(strstr(d.msg, missing));
    assert_int_equal(scenario_load(&sc, dir, NULL, 0, &d), FS_EINVAL);
    assert_non_null(strstr(d.msg, "directory"));

    f = fopen(path, "wb");
    static const unsigned char junk[] = {0x00, 0x01, 0xff, 0x10, 0x80};
    fwrite(junk, 1, sizeof junk, f);
    fclose(f);
    assert_int_equal(scenario_load(&sc, path, NULL, 0, &d), FS_EINVAL);
    assert_string_equal(d.file, path);
    assert_int_equal(d.line, 1);
    assert_int_equal(d.col, 1);
    assert_non_null(strstr(d.msg, "not a text file"));

    const char *sets[] = {"seed=7"};
    f = fopen(path, "w");
    fputs("seed: 1\n", f);
    fclose(f);
    assert_int_equal(scenario_load(&sc, path, sets, 1, &d), 0);
    assert_int_equal(sc.seed, 7);
    scenario_fini(&sc);

    unlink(path);
    rmdir(dir);
}

/* explain ----------------------------------------------------------------- */

static char *explain(const struct scenario *sc) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    scenario_explain(sc, f);
    fclose(f);
    return buf;
}

static void roundtrip(const char *yaml) {
    struct scenario a, b;
    load_ok(&a, yaml, NULL, 0);
    char *text = explain(&a);
    struct diag d;
    int rc = scenario_load_string(&b, text, "s.yaml", NULL, 0, &d);
    if (rc) {
        diag_print(&d, stderr);
        fail_msg("explain output does not load:\n%s", text);
    }
    char *again = explain(&b);
    assert_string_equal(text, again);
    /* a few fields straight from the structs, beyond the text */
    assert_string_equal(a.name, b.name);
    assert_int_equal(a.seed, b.seed);
    assert_int_equal(a.fabric.propagation_ps, b.fabric.propagation_ps);
    assert_int_equal(a.fabric.cable_mm, b.fabric.cable_mm);
    assert_true(a.fabric.dcqcn.g == b.fabric.dcqcn.g);
    assert_true(a.fabric.ecn.pmax == b.fabric.ecn.pmax);
    assert_int_equal(a.fabric.overhead_bytes, b.fabric.overhead_bytes);
    assert_int_equal(scenario_host_count(&a.topo), scenario_host_count(&b.topo));
    assert_int_equal(a.nworkload, b.nworkload);
    for (size_t i = 0; i < a.nworkload; i++) {
        const struct wl_entry *x = &a.workload[i], *y = &b.workload[i];
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->size_bytes, y->size_bytes);
        assert_int_equal(x->nsizes, y->nsizes);
        assert_int_equal(x->nflows, y->nflows);
        if (x->nflows) assert_memory_equal(x->flows, y->flows, x->nflows * sizeof *x->flows);
        assert_int_equal(x->nsenders, y->nsenders);
        if (x->nsenders)
            assert_memory_equal(x->senders, y->senders, x->nsenders * sizeof *x->senders);
        assert_int_equal(x->nranks, y->nranks);
        if (x->nranks) assert_memory_equal(x->ranks, y->ranks, x->nranks * sizeof *x->ranks);
        assert_int_equal(x->ranks_are_gpu_ids, y->ranks_are_gpu_ids);
        assert_int_equal(x->packet_bytes, y->packet_bytes);
        assert_true(x->load == y->load);
    }
    assert_int_equal(a.nevents, b.nevents);
    for (size_t i = 0; i < a.nevents; i++) {
        assert_int_equal(a.events[i].kind, b.events[i].kind);
        assert_int_equal(a.events[i].at_ps, b.events[i].at_ps);
        assert_string_equal(a.events[i].target, b.events[i].target);
    }
    free(text);
    free(again);
    scenario_fini(&a);
    scenario_fini(&b);
}

static void test_explain_roundtrip(void **state) {
    (void)state;
    roundtrip(SPEC_EXAMPLE);
    roundtrip("{}\n");
    roundtrip("name: \"odd \\\"name\\\" x\"\nfabric: {kind: roce, mtu: 2048, cable: 1234mm,\n"
              "  ecn: {pmax: 0.1}, dcqcn: {g: 0.3}, pfc: {headroom: 1000B}}\n");
    roundtrip("fabric: {propagation: 26ps, routing_engine: file, lft_file: a/b.dump}\n"
              "topology: {kind: rail_optimized, hosts: 4}\n"
              "workload:\n"
              "  - {kind: allreduce, size: [1KiB, 3MB], ranks: [h0.g1, h3.g7], algorithm: auto}\n"
              "  - {kind: poisson, load: 0.35, mean: 1500B, senders: [h3, h1], receiver: h2,\n"
              "     duration: 1500ns, start: 7us}\n"
              "  - {kind: incast, senders: [h0, h2], receiver: h1, size: 1B}\n"
              "events: [{at: 0, host_stall: h2, for: 1s}]\n"
              "output: {sample: 2500ns}\n");
    roundtrip("fabric: {vls: 2, vl_buffer: 100000B, sl2vl: [1], vlarb_high: [{vl: 1, weight: 7}],\n"
              "  vlarb_low: [{vl: 0, weight: 1}, {vl: 1, weight: 2}], credit_interval: 1us,\n"
              "  sharp: true, control_plane: {shield: true}, pfc: {dynamic: true}}\n"
              "workload:\n"
              "  - {kind: training, size: 3MB, forward: 1ms, priority: 2}\n"
              "  - {kind: allgather, size: 1MiB, slice: 1000B, channels: 3}\n");
    roundtrip("fabric: {kind: roce, dcqcn: {preset: paper, rai: 1Mbps}, ecn: {pmax: 0.5},\n"
              "  control_plane: {proc: 3ms, mrai: 30s}, pfc: {watchdog: 0s}}\n");
    roundtrip("topology: {fat_tree: {k: 4}}\n"
              "workload: [{kind: permutation, pattern: random, size: 1536B}]\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_infiniband), cmocka_unit_test(test_defaults_roce),
        cmocka_unit_test(test_spec_example),        cmocka_unit_test(test_topologies),
        cmocka_unit_test(test_workload_forms),      cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_malformed),           cmocka_unit_test(test_files),
        cmocka_unit_test(test_explain_roundtrip),   cmocka_unit_test(test_module_defaults),
        cmocka_unit_test(test_module_keys),         cmocka_unit_test(test_dcqcn_preset),
        cmocka_unit_test(test_keys_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

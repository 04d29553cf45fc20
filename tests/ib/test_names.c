/* tests/ib/test_names.c
 *
 * SPEC.md Names on multi-GPU hosts: GPU g of host s is h<s>.g<g> and its NIC
 * h<s>.n<g>. The NIC name resolves to the GPU node's fabric link in link
 * names (events, --pcap-filter); existing names keep working.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ib_common.h"

#include "net/port.h"
#include "stats/pcap.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void rail(struct scenario *sc, uint32_t gpus) {
    ib_scenario(sc);
    sc->topo.kind = TOPO_RAIL_OPTIMIZED;
    sc->topo.hosts = 4;
    sc->topo.gpus_per_host = gpus;
    sc->topo.spines = 2;
    sc->topo.nvlink_bps = 3600000000000ULL; /* 450 GB/s per GPU (docs/sources.md A8) */
}

static void test_nic_names_resolve(void **state) {
    (void)state;
    struct scenario sc;
    rail(&sc, 8);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    uint32_t g = net_node_by_name(n, "h3.g5");
    assert_int_not_equal(g, NET_NONE);
    assert_int_equal(net_node_by_name(n, "h3.n5"), g);
    uint32_t p = net_link_by_name(n, "h3.g5-leaf5", NULL);
    assert_int_not_equal(p, NET_NONE);
    bool directed = true;
    assert_int_equal(net_link_by_name(n, "h3.n5-leaf5", &directed), p);
    assert_false(directed);
    assert_int_equal(net_link_by_name(n, "h3.n5->leaf5", &directed), p);
    assert_true(directed);
    assert_int_equal(net_link_by_name(n, "leaf5->h3.n5", NULL), n->ports[p].peer);
    assert_int_equal(n->ports[n->ports[p].peer].node, net_node_by_name(n, "leaf5"));
    /* the NIC is not on the NVLink; no NIC 8 on an 8-GPU host; NIC 5 is not on leaf 4 */
    assert_int_not_equal(net_link_by_name(n, "h3.g5-h3.nvs", NULL), NET_NONE);
    assert_int_equal(net_link_by_name(n, "h3.n5-h3.nvs", NULL), NET_NONE);
    assert_int_equal(net_link_by_name(n, "h3.n8-leaf5", NULL), NET_NONE);
    assert_int_equal(net_link_by_name(n, "h3.n5-leaf4", NULL), NET_NONE);
    assert_int_equal(net_node_by_name(n, "h3.nvs"), net_node_by_name(n, "h3.nvs"));
    assert_int_not_equal(net_node_by_name(n, "h3.nvs"), NET_NONE);
    /* --pcap-filter link=h3.n5->leaf5 captures that direction only */
    char path[] = "/tmp/fabsim-names-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct pcap_sink s;
    assert_int_equal(pcap_sink_open(&s, n, path, "link=h3.n5->leaf5", 0, 0, PCAP_SNAP_HEADERS, &d),
                     0);
    assert_int_equal(s.port_a, p);
    assert_int_equal(s.port_b, p);
    pcap_sink_close(&s, n);
    assert_int_equal(pcap_sink_open(&s, n, path, "link=h3.n5-leaf5", 0, 0, PCAP_SNAP_HEADERS, &d),
                     0);
    assert_int_equal(s.port_a, p);
    assert_int_equal(s.port_b, n->ports[p].peer);
    pcap_sink_close(&s, n);
    assert_int_not_equal(
        pcap_sink_open(&s, n, path, "link=h3.n5-h3.nvs", 0, 0, PCAP_SNAP_HEADERS, &d), 0);
    unlink(path);
    model_fini(&m);
}

/* A link_down event named by the NIC cuts the GPU's fabric link (and only
 * it): the NVLink stays up. */
static void test_nic_name_in_events(void **state) {
    (void)state;
    struct scenario sc;
    rail(&sc, 8);
    struct sc_event ev = {.at_ps = 1000000, .kind = EV_LINK_DOWN, .target = "h3.n5-leaf5"};
    sc.events = &ev;
    sc.nevents = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    m.sim.stop_ps = 2000000;
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    uint32_t p = net_link_by_name(n, "h3.g5-leaf5", NULL);
    uint32_t nv = net_link_by_name(n, "h3.g5-h3.nvs", NULL);
    assert_false(n->ports[p].up);
    assert_false(n->ports[n->ports[p].peer].up);
    assert_true(n->ports[nv].up);
    uint32_t down = 0;
    for (uint32_t i = 0; i < n->nports; i++)
        down += !n->ports[i].up;
    assert_int_equal(down, 2);
    model_fini(&m);
    /* an unknown NIC is an error naming the link */
    ev.target = "h3.n9-leaf5";
    assert_int_not_equal(model_build(&m, &sc, &d), 0);
    assert_non_null(strstr(d.msg, "h3.n9-leaf5"));
    model_fini(&m);
}

/* One GPU per host: hosts are h0.., no NIC alias (h3.n0 is no name). */
static void test_single_gpu_names_unchanged(void **state) {
    (void)state;
    struct scenario sc;
    ib_scenario(&sc);
    ib_leaf_spine(&sc, 2, 2, 4);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    assert_int_not_equal(net_link_by_name(n, "h3-leaf0", NULL), NET_NONE);
    assert_int_equal(net_node_by_name(n, "h3.n0"), NET_NONE);
    assert_int_equal(net_link_by_name(n, "h3.n0-leaf0", NULL), NET_NONE);
    model_fini(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nic_names_resolve),
        cmocka_unit_test(test_nic_name_in_events),
        cmocka_unit_test(test_single_gpu_names_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

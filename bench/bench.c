/* bench/bench.c
 *
 * Runs benchmark scenarios in-process and prints, per scenario: link-hops
 * (every packet that crossed a link), link-hops and events per CPU-second,
 * peak RSS, and memory per host. `make bench COUNT=1` runs this under
 * callgrind instead (bench/run.sh) for instructions per link-hop.
 *
 * usage: bench SCENARIO.yaml...
 */
#include "config/scenario.h"
#include "core/diag.h"
#include "model/model.h"
#include "core/wall.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        struct scenario sc;
        struct diag d = {0};
        if (scenario_load(&sc, argv[i], NULL, 0, &d)) {
            diag_print(&d, stderr);
            return 2;
        }
        long rss0 = wall_peak_rss_kb();
        struct model m;
        double b0 = wall_cpu_s();
        if (model_build(&m, &sc, &d)) {
            diag_print(&d, stderr);
            return 2;
        }
        double c0 = wall_cpu_s();
        double build_s = c0 - b0;
        long rss_built = wall_peak_rss_kb();
        model_run(&m, NULL, NULL);
        double cpu = wall_cpu_s() - c0;
        uint64_t hops = 0;
        for (uint32_t p = 0; p < m.net.nports; p++)
            hops += m.net.ports[p].tx_packets;
        long rss = wall_peak_rss_kb();
        uint64_t peak_pkts = m.net.pool.peak;
        double pkt_kb = (double)peak_pkts * 64 / 1024.0;
        double per_host_kb = ((double)(rss - rss0) - pkt_kb) / m.net.nhosts;
        printf("%-28s hosts %4u  link-hops %10llu  events %10llu  cpu %.3f s\n", sc.name,
               m.net.nhosts, (unsigned long long)hops, (unsigned long long)m.sim.events_run, cpu);
        printf("%-28s %.2f M link-hops/cpu-s  %.2f M events/cpu-s  peak RSS %ld KB "
               "(%.1f KB/host beyond %llu packets in flight)  completed %s  sim %.3f ms\n",
               "", hops / cpu / 1e6, (double)m.sim.events_run / cpu / 1e6, rss, per_host_kb,
               (unsigned long long)peak_pkts, m.completed ? "yes" : "no",
               (double)m.sim.now_ps / 1e9);
        printf("%-28s model build %.3f cpu-s, peak RSS after build %ld KB, %.0f ns/link-hop\n", "",
               build_s, rss_built, cpu * 1e9 / (double)(hops ? hops : 1));
        /* of the link-hops, credit packets (IB FCPs, CBFC updates): issue
         * 34 counts cost per data-or-ACK hop, the rest */
        uint64_t fc = m.net.c.credit_frames;
        if (fc)
            printf("%-28s credit packets %llu, data-or-ACK hops %llu\n", "", (unsigned long long)fc,
                   (unsigned long long)(hops - fc));
        /* one line for bench/run.sh's table of targets */
        printf("BENCH %s hosts=%u hops=%llu data_hops=%llu cpu_s=%.3f build_s=%.3f rss_kb=%ld\n",
               sc.name, m.net.nhosts, (unsigned long long)hops, (unsigned long long)(hops - fc),
               cpu, build_s, rss);
        fflush(stdout);
        model_fini(&m);
        scenario_fini(&sc);
    }
    return 0;
}

/* src/cli/main_mpi.c
 *
 * The entry point of build/fabsim-mpi and the only file that includes mpi.h
 * (STYLE.md: one file wraps each external library): struct comm_ops over
 * MPI_COMM_WORLD, then the usual command line. `mpirun -n N fabsim-mpi run
 * SCENARIO` runs one simulation on N ranks (par/par.h); every other command,
 * and `run` on one rank, is the sequential fabsim. Built by `make mpi` only
 * (mpicc, Open MPI from Debian), so that build/fabsim never needs MPI.
 *
 * A run that names Open MPI's BTLs (--mca btl) and no PML gets the ob1 PML
 * (OMPI_MCA_pml=ob1, set before MPI_Init): the BTLs are ob1's, and the other
 * PMLs' start-up is most of MPI_Init's time.
 *
 * On one machine the packets go through Open MPI's shared-memory BTL (vader),
 * whose single-copy mechanism (CMA: a process_vm_readv system call per large
 * message) is off unless the user sets it: a window's few KB of packets are
 * cheaper copied through the shared FIFOs (2 ranks: 5-11 % less wall time;
 * docs/performance.md "Shared-memory copies").
 *
 * After MPI_Init the process's loopback TCP connections (Open MPI's PMIx
 * client to its local server) get TCP_NODELAY: PMIx writes a request as
 * several small segments, Nagle's algorithm holds the later ones until the
 * first is acknowledged, and the server's delayed ACK (Linux: 40 ms minimum)
 * releases them — 40-50 ms of every MPI_Finalize (its PMIx fence) spent
 * waiting (docs/performance.md "Parallel runs").
 *
 * FABSIM_PAR_LOOKAHEAD_PS (tests only) forces a window length: longer than
 * the shortest cut link, it must be caught by the engine's causality check.
 */
#include "cli/cli.h"
#include "par/comm.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <limits.h>
#include <mpi.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void mpi_allgather(void *ctx, const void *in, size_t bytes, void *out) {
    (void)ctx;
    if (bytes > INT_MAX) {
        fprintf(stderr, "fabsim-mpi: a %zu-byte allgather is over MPI's int count\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
}

static void mpi_alltoallv(void *ctx, const void *in, const size_t *scount, void *out,
                          const size_t *rcount) {
    (void)ctx;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *sc = calloc((size_t)size * 4, sizeof *sc);
    if (!sc) MPI_Abort(MPI_COMM_WORLD, 1);
    int *sd = sc + size, *rc = sc + 2 * size, *rd = sc + 3 * size;
    size_t so = 0, ro = 0;
    for (int r = 0; r < size; r++) {
        if (so + scount[r] > INT_MAX || ro + rcount[r] > INT_MAX) {
            fprintf(stderr, "fabsim-mpi: an exchange over 2 GiB per window\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        sc[r] = (int)scount[r];
        sd[r] = (int)so;
        rc[r] = (int)rcount[r];
        rd[r] = (int)ro;
        so += scount[r];
        ro += rcount[r];
    }
    MPI_Alltoallv(in, sc, sd, MPI_BYTE, out, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
    free(sc);
}

/* TCP_NODELAY on every connected TCP socket whose peer is this machine
 * (127.0.0.0/8, ::1): the MPI library's connections to its local daemon. A
 * socket of any other kind, or to another host, is left as it is. */
static void nodelay_fd(int fd) {
    int type;
    socklen_t len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) || type != SOCK_STREAM) return;
    struct sockaddr_storage peer;
    len = sizeof peer;
    if (getpeername(fd, (struct sockaddr *)&peer, &len)) return;
    int local = 0;
    if (peer.ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&peer;
        local = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
    } else if (peer.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&peer;
        local = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
    }
    int one = 1;
    if (local) (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* The open descriptors from /proc/self/fd (Linux); elsewhere the first 256. */
static void nodelay_loopback(void) {
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        for (int fd = 3; fd < 256; fd++)
            nodelay_fd(fd);
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        int fd = atoi(e->d_name);
        if (fd > 2 && fd != dirfd(d)) nodelay_fd(fd);
    }
    closedir(d);
}

static const struct comm_ops MPI_OPS = {mpi_allgather, mpi_alltoallv};

int main(int argc, char **argv) {
    /* Open MPI: a run that names its BTLs (`mpirun --mca btl self,vader`,
     * which only the ob1 PML uses) gets ob1 without the others' start-up:
     * the cm PML opens the PSM and PSM2 MTLs, which probe for Omni-Path
     * hardware — 0.26 s of MPI_Init on this machine against 0.04-0.07 s
     * (docs/performance.md "Parallel runs"). Only when no PML is named. */
    if (getenv("OMPI_MCA_btl") && !getenv("OMPI_MCA_pml")) setenv("OMPI_MCA_pml", "ob1", 0);
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5 /* Open MPI 5 renamed vader to sm */
    setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0); /* unless the user chose */
#endif
    MPI_Init(&argc, &argv);
    nodelay_loopback();
    struct comm c = {0, 1, &MPI_OPS, NULL};
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size);
    int rc;
    if (argc >= 2 && strcmp(argv[1], "run") == 0) {
        const char *la = getenv("FABSIM_PAR_LOOKAHEAD_PS");
        /* The model is replicated, so a bad input fails the same way on every
         * rank: rank 0 prints it, the others keep what they print and show it
         * only when their status differs from rank 0's (their own failure). */
        FILE *held = c.size > 1 && c.rank ? tmpfile() : NULL;
        int saved = held ? dup(2) : -1;
        if (saved >= 0) dup2(fileno(held), 2);
        rc = cli_run_par(argc - 1, argv + 1, &c, la ? strtoull(la, NULL, 10) : 0);
        int rc0 = rc;
        MPI_Bcast(&rc0, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (saved >= 0) {
            fflush(stderr);
            dup2(saved, 2);
            close(saved);
            char buf[4096];
            size_t got;
            rewind(held);
            while (rc != rc0 && (got = fread(buf, 1, sizeof buf, held)) > 0)
                fwrite(buf, 1, got, stderr);
        }
        if (held) fclose(held);
    } else if (c.size > 1) {
        if (c.rank == 0)
            fprintf(stderr, "fabsim-mpi: only `run` runs on several ranks; run the other "
                            "commands without mpirun (or with -n 1)\n");
        rc = 2;
    } else {
        rc = cli_main(argc, argv);
    }
    /* Every rank agrees on the status (the model is replicated); the worst wins. */
    int worst = rc;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}

/*
 * host_wire.c - the layer's own messages in a run across hosts (counter
 * updates and their acknowledgements, the online model's feed relay,
 * communicator ids) over TCP sockets of its own, not over MPI.
 *
 * Why not MPI (doc/mpi.md, "Across hosts"): the hosts' agents are threads
 * that talk while the program's threads are in MPI too, which MPI allows
 * only under MPI_THREAD_MULTIPLE; Open MPI 4.1 over TCP then refuses every
 * one-sided window (osc pt2pt), so a program using MPI_Win_create could
 * not run across hosts.  With the agents' traffic here, the program gets
 * the thread level it asked for and its windows work as on one host.
 *
 * How: every process of the run listens on a port of its own (any
 * interface; its address is the first IPv4 address of its host name, or
 * TORUSEMU_HOSTS_ADDR), and the addresses are exchanged once at MPI_Init.
 * A process sends to a peer on the one connection it opened to it, so the
 * messages from one process to another arrive in the order sent, and reads
 * on the connections others opened to it.  A message is two header words
 * (source rank << 32 | tag, then its length in words) and its words.
 * Messages read but not yet asked for wait in one queue, taken by source
 * and tag as MPI matches them.  A send that would block reads what has
 * come in meanwhile, so two processes sending to each other never wait on
 * each other.  One lock guards everything: the layer's messages are few
 * and small beside the program's.
 *
 * The port listens on every interface, so anything on the network can
 * connect to it: a connection's first 8 bytes must be the run's key (drawn
 * by rank 0 from the system's random source and given to every rank over
 * MPI at the start), and every header must name a rank of the run and a
 * length the layer can send; a connection that breaks either rule is
 * closed and said on stderr, and nothing it sent is taken.
 */
#include "tmpi.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WIRE_ADDR_ENV "TORUSEMU_HOSTS_ADDR"
/* a directory where each rank writes its port (tests: a stranger's bytes) */
#define WIRE_PORTS_ENV "TORUSEMU_HOSTS_WIRE_PORTS"
/* the header: source << 32 | tag, then the number of words that follow */
#define HEAD_WORDS 2
/* the longest message the layer sends, in words (a host's store copy for
 * the sampler is the longest: far below this); longer is not ours */
#define WIRE_MAX_WORDS ((uint64_t)1 << 27)

typedef struct wire_msg {
    struct wire_msg *next;
    int32_t source, tag;
    size_t n;
    uint64_t w[];
} wire_msg;

/* A connection another process opened to this one: bytes read so far. */
typedef struct wire_in {
    int fd;
    unsigned char *buf;
    size_t have, cap;
    int keyed; /* its first 8 bytes were the run's key */
} wire_in;

static struct {
    pthread_mutex_t lock;
    int on;
    int listen_fd;
    int32_t rank, size;
    uint64_t key;   /* the run's key: the first 8 bytes on every connection */
    uint32_t *addr; /* per rank: IPv4 address, port (network order) */
    int *out;       /* per rank: the connection this process opened, or -1 */
    wire_in *in;
    int nin, capin;
    wire_msg *head, **tail;
} wire = {.lock = PTHREAD_MUTEX_INITIALIZER, .listen_fd = -1};

/* ------------------------------------------------------------ reading */

static void queue_push(wire_msg *m)
{
    m->next = NULL;
    *wire.tail = m;
    wire.tail = &m->next;
}

/* c closed and emptied: its peer broke a rule of the wire (why). */
static void in_refuse(wire_in *c, const char *why)
{
    fprintf(stderr, "torusemu-mpi: rank %d closed a connection to the layer's port: %s\n",
            (int)wire.rank, why);
    if (c->fd >= 0) {
        close(c->fd);
    }
    c->fd = -1;
    c->have = 0;
}

/* Whether c's first 8 bytes are the run's key (consumed); 0 while they
 * have not all come, -1 (c refused) when they are not the key. */
static int in_key(wire_in *c)
{
    uint64_t key;
    if (c->have < sizeof key) {
        return 0;
    }
    memcpy(&key, c->buf, sizeof key);
    if (key != wire.key) {
        in_refuse(c, "it did not present this run's key");
        return -1;
    }
    memmove(c->buf, c->buf + sizeof key, c->have - sizeof key);
    c->have -= sizeof key;
    c->keyed = 1;
    return 1;
}

/* The complete messages in c's buffer into the queue. */
static void in_parse(wire_in *c)
{
    size_t at = 0;
    if (!c->keyed && in_key(c) <= 0) {
        return;
    }
    while (c->have - at >= HEAD_WORDS * sizeof(uint64_t)) {
        uint64_t head[HEAD_WORDS];
        memcpy(head, c->buf + at, sizeof head);
        int64_t from = (int64_t)(head[0] >> 32);
        if (from >= wire.size || head[1] > WIRE_MAX_WORDS) {
            in_refuse(c, from >= wire.size ? "a message from no rank of the run"
                                           : "a message longer than the layer sends");
            return;
        }
        size_t bytes = sizeof head + head[1] * sizeof(uint64_t);
        if (c->have - at < bytes) {
            break;
        }
        wire_msg *m = malloc(sizeof *m + (head[1] > 0 ? head[1] : 1) * sizeof(uint64_t));
        if (m == NULL) {
            break; /* kept in the buffer: parsed at the next read */
        }
        m->source = (int32_t)(head[0] >> 32);
        m->tag = (int32_t)(uint32_t)head[0];
        m->n = (size_t)head[1];
        memcpy(m->w, c->buf + at + sizeof head, m->n * sizeof(uint64_t));
        queue_push(m);
        at += bytes;
    }
    memmove(c->buf, c->buf + at, c->have - at);
    c->have -= at;
}

/* What c's peer has sent, read without waiting; the connection closed at
 * its end (its fd set to -1). */
static void in_read(wire_in *c)
{
    for (;;) {
        if (c->cap - c->have < 65536) {
            size_t cap = c->cap ? c->cap * 2 : 131072;
            unsigned char *b = realloc(c->buf, cap);
            if (b == NULL) {
                return;
            }
            c->buf = b;
            c->cap = cap;
        }
        ssize_t got = read(c->fd, c->buf + c->have, c->cap - c->have);
        if (got > 0) {
            c->have += (size_t)got;
            continue;
        }
        if (got < 0 && (errno == EINTR)) {
            continue;
        }
        if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
            close(c->fd);
            c->fd = -1;
        }
        break;
    }
    in_parse(c);
}

/* Connections other processes opened since the last look, taken. */
static void in_accept(void)
{
    int fd;
    while ((fd = accept(wire.listen_fd, NULL, NULL)) >= 0) {
        if (wire.nin == wire.capin) {
            int cap = wire.capin ? wire.capin * 2 : 16;
            wire_in *in = realloc(wire.in, (size_t)cap * sizeof *in);
            if (in == NULL) {
                close(fd);
                return;
            }
            wire.in = in;
            wire.capin = cap;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        wire.in[wire.nin++] = (wire_in){.fd = fd};
    }
}

/* Everything that has arrived, into the queue (under the lock). */
static void wire_pump(void)
{
    in_accept();
    for (int i = 0; i < wire.nin; i++) {
        if (wire.in[i].fd >= 0) {
            in_read(&wire.in[i]);
        }
    }
}

/* The first waiting message from `from` (-1: any) with tag, unlinked. */
static wire_msg *queue_match(int32_t from, int32_t tag)
{
    for (wire_msg **p = &wire.head; *p != NULL; p = &(*p)->next) {
        wire_msg *m = *p;
        if (m->tag == tag && (from < 0 || m->source == from)) {
            *p = m->next;
            if (*p == NULL) {
                wire.tail = p;
            }
            return m;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------ sending */

/* len bytes written to fd; what comes in meanwhile is read (the peer may
 * be writing to this process too); 0 or -1. */
static int out_write(int fd, const void *p, size_t len)
{
    const unsigned char *b = p;
    while (len > 0) {
        ssize_t put = write(fd, b, len);
        if (put > 0) {
            b += put;
            len -= (size_t)put;
        } else if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            wire_pump();
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            poll(&pf, 1, 1);
        } else {
            return -1;
        }
    }
    return 0;
}

/* This process's connection to rank `to`, opened at the first message. */
static int out_fd(int32_t to)
{
    if (wire.out[to] >= 0) {
        return wire.out[to];
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = wire.addr[2 * to];
    sa.sin_port = (in_port_t)wire.addr[2 * to + 1];
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    if (out_write(fd, &wire.key, sizeof wire.key) != 0) {
        close(fd);
        return -1;
    }
    wire.out[to] = fd;
    return fd;
}

int tmpi_wire_send(int32_t to, int32_t tag, const uint64_t *w, size_t n)
{
    int rc = -1;
    if (!__atomic_load_n(&wire.on, __ATOMIC_ACQUIRE) || to < 0 || to >= wire.size) {
        return -1;
    }
    uint64_t head[HEAD_WORDS] = {(uint64_t)(uint32_t)wire.rank << 32 | (uint32_t)tag, n};
    pthread_mutex_lock(&wire.lock);
    int fd = out_fd(to);
    if (fd >= 0 && out_write(fd, head, sizeof head) == 0 && out_write(fd, w, n * sizeof *w) == 0) {
        rc = 0;
    }
    pthread_mutex_unlock(&wire.lock);
    return rc;
}

/* ------------------------------------------------------------ taking */

uint64_t *tmpi_wire_take(int32_t from, int32_t tag, size_t *n, int32_t *source)
{
    if (!__atomic_load_n(&wire.on, __ATOMIC_ACQUIRE)) {
        return NULL;
    }
    pthread_mutex_lock(&wire.lock);
    wire_msg *m = queue_match(from, tag);
    if (m == NULL) {
        wire_pump();
        m = queue_match(from, tag);
    }
    pthread_mutex_unlock(&wire.lock);
    if (m == NULL) {
        return NULL;
    }
    /* the words move to the front of the block, which the caller frees */
    *n = m->n;
    if (source != NULL) {
        *source = m->source;
    }
    memmove(m, m->w, m->n * sizeof(uint64_t));
    return (uint64_t *)m;
}

uint64_t *tmpi_wire_wait(int32_t from, int32_t tag, size_t *n, int32_t *source)
{
    unsigned idle = 0;
    uint64_t *w;
    while ((w = tmpi_wire_take(from, tag, n, source)) == NULL) {
        if (!__atomic_load_n(&wire.on, __ATOMIC_ACQUIRE)) {
            return NULL;
        }
        /* yield first (an answer usually takes microseconds), then sleep
         * 50 us at a time */
        if (++idle < 1024) {
            sched_yield();
        } else {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
    return w;
}

/* ------------------------------------------------------------ start, end */

/* This host's IPv4 address as others reach it (network order). */
static uint32_t own_address(void)
{
    const char *env = getenv(WIRE_ADDR_ENV);
    struct in_addr a = {htonl(INADDR_LOOPBACK)};
    char name[256];
    struct addrinfo hint = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (env != NULL && env[0] != '\0') {
        inet_pton(AF_INET, env, &a);
        return a.s_addr;
    }
    if (gethostname(name, sizeof name) == 0 && getaddrinfo(name, NULL, &hint, &res) == 0) {
        for (struct addrinfo *r = res; r != NULL; r = r->ai_next) {
            const struct sockaddr_in *sa = (const struct sockaddr_in *)r->ai_addr;
            a = sa->sin_addr;
            if ((ntohl(a.s_addr) >> 24) != 127) {
                break; /* a loopback address only if there is nothing else */
            }
        }
        freeaddrinfo(res);
    }
    return a.s_addr;
}

/* The run's key: 8 bytes from the system's random source (the clock
 * and the process id mixed if it has none). */
static uint64_t run_key(void)
{
    uint64_t k = 0;
    if (getrandom(&k, sizeof k, 0) != (ssize_t)sizeof k) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        k = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
            ((uint64_t)getpid() << 40) ^ 0x9e3779b97f4a7c15ull;
    }
    return k;
}

/* The listening socket, on any interface and a port the system picks;
 * its port (network order) or 0. */
static uint32_t listen_open(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t len = sizeof sa;
    wire.listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    if (wire.listen_fd < 0 || bind(wire.listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(wire.listen_fd, 256) != 0 ||
        getsockname(wire.listen_fd, (struct sockaddr *)&sa, &len) != 0) {
        return 0;
    }
    fcntl(wire.listen_fd, F_SETFL, fcntl(wire.listen_fd, F_GETFL) | O_NONBLOCK);
    return sa.sin_port;
}

/* The port (network order) written to $TORUSEMU_HOSTS_WIRE_PORTS/port.RANK
 * when that is set: a test's way to reach the port from outside. */
static void port_tell(int32_t rank, uint32_t port)
{
    const char *dir = getenv(WIRE_PORTS_ENV);
    char path[4096];
    if (dir == NULL || dir[0] == '\0' ||
        snprintf(path, sizeof path, "%s/port.%d", dir, (int)rank) >= (int)sizeof path) {
        return;
    }
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fprintf(f, "%u\n", (unsigned)ntohs((uint16_t)port));
        fclose(f);
    }
}

int tmpi_wire_open(MPI_Comm comm, int32_t rank, int32_t size, char *why, size_t len)
{
    uint32_t mine[2] = {own_address(), listen_open()};
    int ok = mine[1] != 0, all = 0;
    wire.rank = rank;
    wire.size = size;
    wire.tail = &wire.head;
    wire.addr = malloc((size_t)size * 2 * sizeof *wire.addr);
    wire.out = malloc((size_t)size * sizeof *wire.out);
    ok = ok && wire.addr != NULL && wire.out != NULL;
    for (int32_t r = 0; ok && r < size; r++) {
        wire.out[r] = -1;
    }
    if (rank == 0) {
        wire.key = run_key();
    }
    tmpi_depth++; /* ours, not the program's */
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all) {
        PMPI_Allgather(mine, 2, MPI_UINT32_T, wire.addr, 2, MPI_UINT32_T, comm);
        PMPI_Bcast(&wire.key, 1, MPI_UINT64_T, 0, comm);
    }
    tmpi_depth--;
    if (!all) {
        snprintf(why, len, "%s",
                 ok ? "another rank could not listen for the layer's messages"
                    : "cannot listen on a TCP port for the layer's messages");
        return -1;
    }
    __atomic_store_n(&wire.on, 1, __ATOMIC_RELEASE);
    port_tell(rank, mine[1]);
    return 0;
}

void tmpi_wire_close(void)
{
    if (!__atomic_exchange_n(&wire.on, 0, __ATOMIC_ACQ_REL)) {
        return;
    }
    pthread_mutex_lock(&wire.lock);
    for (int32_t r = 0; r < wire.size; r++) {
        if (wire.out[r] >= 0) {
            close(wire.out[r]);
        }
    }
    for (int i = 0; i < wire.nin; i++) {
        if (wire.in[i].fd >= 0) {
            close(wire.in[i].fd);
        }
        free(wire.in[i].buf);
    }
    while (wire.head != NULL) {
        wire_msg *m = wire.head;
        wire.head = m->next;
        free(m);
    }
    wire.tail = &wire.head;
    close(wire.listen_fd);
    free(wire.in);
    free(wire.out);
    free(wire.addr);
    wire.in = NULL;
    wire.out = NULL;
    wire.addr = NULL;
    wire.nin = wire.capin = 0;
    pthread_mutex_unlock(&wire.lock);
}

/*
 * What a kernel needs to reach the symmetric heap: a small struct passed by
 * value to kernels, filled on the host by shoal_device_get (shoal_cuda.h)
 * and used by the inline functions of shoal_device.cuh. Plain C.
 */
#ifndef SHOAL_DEVICE_TYPES_H
#define SHOAL_DEVICE_TYPES_H

#ifdef __cplusplus
extern "C" {
#endif

/* Control area of each PE (device memory right behind its heap), in 32-bit words. */
#define SHOAL_DEVICE_STREAM_FLAGS 0       /* [0, 4096): stream-barrier flag of each PE */
#define SHOAL_DEVICE_BARRIER_FLAGS 4096   /* [4096, 8192): device-barrier flag of each PE */
#define SHOAL_DEVICE_BARRIER_GEN 8192     /* this PE's device-barrier generation */
#define SHOAL_DEVICE_BARRIER_RELEASE 8193 /* hierarchical barriers: the generation my node's leader released */
#define SHOAL_DEVICE_BARRIER_STATUS 8194  /* and the status of its meeting with the other nodes */
#define SHOAL_DEVICE_MAX_PES 4096
/* Each team's words (a block of SHOAL_DEVICE_TEAM_WORDS per team id, from
 * SHOAL_DEVICE_TEAM_BASE): stream-barrier flags of its members, then
 * device-barrier flags, then this PE's device-barrier generation. Teams of
 * up to SHOAL_DEVICE_TEAM_PES members meet on the GPU. */
#define SHOAL_DEVICE_TEAM_BASE 16384
#define SHOAL_DEVICE_TEAM_WORDS 4096
#define SHOAL_DEVICE_TEAM_PES 1024
#define SHOAL_DEVICE_TEAM_STREAM_FLAGS 0
#define SHOAL_DEVICE_TEAM_FLAGS 1024
#define SHOAL_DEVICE_TEAM_GEN 2048
#define SHOAL_DEVICE_TEAMS 64

/* PEs whose peer addresses travel inside the struct (kernel parameter
 * space, read through the constant cache) instead of the device arrays:
 * the window near_first .. near_first + SHOAL_DEVICE_NEAR_PES - 1. It starts
 * at the lowest of the load/store reachable PEs just below this one (this
 * PE if none), so it holds the GPUs of a node numbered consecutively; its
 * entries are NULL where the device arrays' are (unreachable, past n_pes). */
#define SHOAL_DEVICE_NEAR_PES 8

/* The device proxy (runtime/proxy/): operations a kernel addresses to a PE
 * it has no load/store path to (another node, a GPU pair without peer
 * access, an atomic where the pair has no native peer atomics) become
 * requests in a ring of SHOAL_DEVICE_PROXY_SLOTS slots in pinned host
 * memory; a host thread of the issuing PE serves them in ticket order
 * through the host data path. A slot's state is (ticket << 2) | one of
 * the SHOAL_DEVICE_PROXY_FREE.. kinds. */
#define SHOAL_DEVICE_PROXY_SLOTS 1024
#define SHOAL_DEVICE_PROXY_FREE 0   /* ticket may take the slot */
#define SHOAL_DEVICE_PROXY_POSTED 1 /* ticket's request is ready for the host */
#define SHOAL_DEVICE_PROXY_DONE 2   /* served; its issuer reads the outcome and frees it */
/* Requests (op): the low byte; SHOAL_DEVICE_PROXY_ACK asks for an answer. */
enum {
    SHOAL_DEVICE_PROXY_PUT = 1,     /* nbytes from local src to pe's dest */
    SHOAL_DEVICE_PROXY_GET = 2,     /* nbytes from pe's src to local dest */
    SHOAL_DEVICE_PROXY_P = 3,       /* value (nbytes: 1, 2, 4 or 8) into pe's dest */
    SHOAL_DEVICE_PROXY_G = 4,       /* nbytes of pe's src, answered in value */
    SHOAL_DEVICE_PROXY_AMO = 5,     /* arg: the atomic (low byte) and its size (next byte) on pe's dest */
    SHOAL_DEVICE_PROXY_SIGNAL = 6,  /* put nbytes (may be 0), then the signal op arg on pe's sig */
    SHOAL_DEVICE_PROXY_FENCE = 7,   /* order what came before before what comes after */
    SHOAL_DEVICE_PROXY_QUIET = 8,   /* complete what came before; answers the first error since the last */
    SHOAL_DEVICE_PROXY_BARRIER = 9, /* quiet, then meet the group: dest = first PE, src = stride, nbytes = size,
                                       sig = the team's id (SHOAL_DEVICE_TEAMS: every PE); or arg =
                                       SHOAL_DEVICE_PROXY_LEADERS: the nodes' leaders */
    SHOAL_DEVICE_PROXY_ACK = 0x100
};
#define SHOAL_DEVICE_PROXY_LEADERS 1
/* A SHOAL_DEVICE_PROXY_AMO request's atomic (arg's low byte): the host's
 * numbering of atomics (runtime/proxy/proxy.c checks they agree). */
enum {
    SHOAL_DEVICE_AMO_FETCH = 0,
    SHOAL_DEVICE_AMO_SET = 1,
    SHOAL_DEVICE_AMO_SWAP = 2,
    SHOAL_DEVICE_AMO_CSWAP = 3,
    SHOAL_DEVICE_AMO_ADD = 4,
    SHOAL_DEVICE_AMO_AND = 5,
    SHOAL_DEVICE_AMO_OR = 6,
    SHOAL_DEVICE_AMO_XOR = 7
};
/* Bytes of proxy scratch per team id (reductions with members out of load/store reach). */
#define SHOAL_DEVICE_PROXY_SCRATCH ((unsigned long long)64 << 10)

/* One request: 64 bytes, written by a kernel thread, state last. */
typedef struct shoal_dev_proxy_req {
    unsigned long long state; /* (ticket << 2) | SHOAL_DEVICE_PROXY_{FREE,POSTED,DONE} */
    unsigned short op;        /* SHOAL_DEVICE_PROXY_* */
    unsigned short arg;       /* per op */
    int pe;
    unsigned long long dest, src, nbytes; /* device addresses and a size */
    unsigned long long value;             /* operand; the answer's value */
    unsigned long long cond;              /* compare operand; the answer's status */
    unsigned long long sig;               /* signal word */
} shoal_dev_proxy_req_t;

/* What kernels need of the proxy (all NULL where there is none). */
typedef struct shoal_dev_proxy {
    shoal_dev_proxy_req_t *slots; /* the ring, pinned host memory mapped for the GPU */
    unsigned long long *tail;     /* device memory: the next ticket */
    unsigned long long *quieted;  /* device memory: every ticket below it is complete */
    unsigned int *broken;         /* device memory: 1 after a thread gave up on the ring (timeout) */
    unsigned int *broken_host;    /* the same in pinned host memory, where the host's drain sees it */
    char *scratch;                /* device memory: SHOAL_DEVICE_PROXY_SCRATCH bytes per team id */
    int status;                   /* SHOAL_SUCCESS, or why there is no proxy (SHOAL_ERR_THREAD, ...) */
} shoal_dev_proxy_t;

typedef struct shoal_device {
    int my_pe;                      /* this PE */
    int n_pes;                      /* PEs of the instance */
    char *heap_base;                /* my heap (device address) */
    unsigned long long heap_size;   /* bytes */
    char *const *peer_base;         /* device array [n_pes]: pe's heap mapped here, NULL if not load/store reachable */
    unsigned int *const *peer_ctrl; /* device array [n_pes]: pe's control area mapped here, or NULL */
    unsigned int *ctrl;             /* my control area */
    int near_first;                 /* first PE of the near window */
    int barrier_ok;                 /* 1: every PE's heap and control area are mapped here */
    char *near_base[SHOAL_DEVICE_NEAR_PES];         /* peer_base[near_first + k], NULL past n_pes */
    unsigned int *near_ctrl[SHOAL_DEVICE_NEAR_PES]; /* peer_ctrl[near_first + k], NULL past n_pes */
    /* Atomics: bit k of near_amo (PE near_first + k), else peer_amo[pe]:
     * 1 where atomics through the mapping are native (same GPU, or peers
     * with native peer atomics); 0 sends them through the proxy. */
    unsigned int near_amo;
    const unsigned char *peer_amo; /* device array [n_pes] */
    /* This PE's node, for hierarchical device barriers: its PEs (device
     * array, ascending; node_pes[0] leads), and whether all of them are
     * load/store reachable from here. */
    const int *node_pes;
    int node_size;
    int node_rank;
    int node_ok;
    shoal_dev_proxy_t proxy;
} shoal_device_t;

/* A team, for kernels: filled by shoal_team_device_get (shoal_cuda.h) and
 * passed by value like shoal_device_t. Member i is the instance's PE
 * start + i * stride. */
typedef struct shoal_dev_team {
    int my_pe;  /* this PE's number in the team */
    int n_pes;  /* members */
    int start;  /* instance PE of member 0 */
    int stride; /* between members' instance PEs */
    int id;     /* its words in every member's control area */
    int ok;     /* 1: every member's heap and control area are mapped here */
} shoal_dev_team_t;

#ifdef __cplusplus
}
#endif
#endif /* SHOAL_DEVICE_TYPES_H */

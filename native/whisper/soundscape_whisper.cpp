// libsoundscape-whisper.so: the small C API of soundscape_whisper.h over whisper.cpp, compiled by scripts/setup
// against the whisper.h of the pinned source. It checks a model file before whisper.cpp reads it (whisper.cpp
// would load a file cut short in its last tensor without a word), turns every failure, C++ exceptions included,
// into a sentence, keeps whisper.cpp's log quiet, and bounds every transcription in tokens and in time.
#include "soundscape_whisper.h"

#include "ggml.h"
#include "whisper.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <malloc.h>
#include <mutex>
#include <stdexcept>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

// A node of the token trie of the sentences ssw_search chooses among: the token that leads to it, its children, and
// the sentences (indices into the set) that end here.
struct ssw_trie_node {
    whisper_token token = -1;
    int parent = -1;
    std::vector<std::pair<whisper_token, int>> children;
    std::vector<int> ends;
};

struct ssw_model {
    whisper_context *context;
    int threads;
    // The decoder state of the utterance in hand: made by ssw_transcribe, kept for ssw_score, freed by ssw_release
    // (its buffers are most of what Whisper holds beyond its weights).
    whisper_state *state = nullptr;
    // The tokens the last transcription's text followed (previous-text marker, prompt, start, no timestamps), and
    // whether that transcription's audio is still encoded in `state`.
    std::vector<whisper_token> prefix;
    bool encoded = false;
    // Whether `state`'s self-attention cache still holds `prefix` at positions 0..prefix.size()-1 for sequence 0,
    // as whisper_full left it; ssw_score then decodes only the prefix's last token again for its logits.
    bool prefix_cached = false;
    // The sentences of ssw_set_sentences as a token trie (node 0 is the root), and each sentence's token count.
    std::vector<ssw_trie_node> trie;
    std::vector<int> sentence_tokens;
};

namespace {

// whisper.cpp reports through a process-wide log callback; its errors are kept per thread so that the failing
// call can quote them, and everything else is dropped (it would go to the terminal the user listens through).
thread_local std::string last_log_error;

void quiet_log(enum ggml_log_level level, const char *text, void *) {
    if (level != GGML_LOG_LEVEL_ERROR || text == nullptr) return;
    std::string line(text);
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
    if (line.empty()) return;
    if (!last_log_error.empty()) last_log_error += "; ";
    last_log_error += line;
    if (last_log_error.size() > 600) last_log_error.erase(0, last_log_error.size() - 600);
}

void install_log_once() {
    static std::once_flag once;
    std::call_once(once, [] { whisper_log_set(quiet_log, nullptr); });
}

void put(char *out, size_t size, const char *format, ...) {
    if (out == nullptr || size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(out, size, format, args);
    va_end(args);
}

// Walks the ggml Whisper file: magic, header, mel filters, vocabulary, then tensor after tensor to the end.
// Returns an empty string when the structure holds, or what is wrong.
std::string check_model_file(const char *path) {
    FILE *file = std::fopen(path, "rb");
    if (file == nullptr) return std::string("cannot be opened: ") + std::strerror(errno);
    std::fseek(file, 0, SEEK_END);
    const long long size = std::ftell(file);
    std::fseek(file, 0, SEEK_SET);
    char message[512];
    auto fail = [&](const char *format, auto... values) {
        std::snprintf(message, sizeof message, format, values...);
        std::fclose(file);
        return std::string(message);
    };
    auto read32 = [&](int32_t &value) { return std::fread(&value, sizeof value, 1, file) == 1; };

    if (size < 4) return fail("is empty or shorter than a model header (%lld bytes)", size);
    uint32_t magic = 0;
    std::fread(&magic, 4, 1, file);
    if (magic == 0x46554747u) return fail("is a GGUF file, another format than the ggml Whisper model this program reads");
    if (magic != 0x67676d6cu) return fail("is not a ggml Whisper model (its first bytes are %08x, not 67676d6c)", magic);

    int32_t h[11];
    for (int32_t &value : h) if (!read32(value)) return fail("is cut short in its header (%lld bytes)", size);
    const int32_t n_vocab = h[0], n_audio_ctx = h[1], n_state = h[2], n_audio_head = h[3], n_audio_layer = h[4];
    const int32_t n_text_ctx = h[5], n_text_head = h[7], n_text_layer = h[8], n_mels = h[9];
    if (n_vocab < 50000 || n_vocab > 60000 || n_audio_ctx < 1 || n_audio_ctx > 4096 || n_state < 1 || n_state > 8192 ||
        h[6] != n_state || n_audio_head < 1 || n_audio_head > 64 || n_audio_layer < 1 || n_audio_layer > 64 ||
        n_text_ctx < 1 || n_text_ctx > 4096 || n_text_head < 1 || n_text_head > 64 || n_text_layer < 1 ||
        n_text_layer > 64 || (n_mels != 80 && n_mels != 128))
        return fail("has a header no Whisper model has (vocabulary %d, audio context %d, width %d, mel bands %d)",
                    n_vocab, n_audio_ctx, n_state, n_mels);

    int32_t filter_mels = 0, filter_bins = 0;
    if (!read32(filter_mels) || !read32(filter_bins)) return fail("is cut short before its mel filters");
    if (filter_mels != n_mels || filter_bins < 1 || filter_bins > 4096)
        return fail("has mel filters of %d x %d, not %d bands", filter_mels, filter_bins, n_mels);
    std::fseek(file, (long) filter_mels * filter_bins * 4, SEEK_CUR);

    int32_t tokens = 0;
    if (!read32(tokens) || tokens < 0 || tokens > n_vocab) return fail("has a vocabulary of %d tokens for %d", tokens, n_vocab);
    for (int32_t i = 0; i < tokens; ++i) {
        int32_t length = 0;
        if (!read32(length)) return fail("is cut short in its vocabulary (token %d of %d)", i, tokens);
        if (length < 0 || length > 1024) return fail("has a token %d of %d bytes", i, length);
        std::fseek(file, length, SEEK_CUR);
    }
    if (std::ftell(file) > size) return fail("is cut short in its vocabulary");

    int count = 0;
    for (;;) {
        const long long start = std::ftell(file);
        if (start == size) break;
        int32_t dims = 0, name_length = 0, type = 0;
        if (!read32(dims) || !read32(name_length) || !read32(type))
            return fail("is cut short after %d tensors (%lld bytes; the next tensor's header is incomplete)", count, size);
        if (dims < 1 || dims > 3 || name_length < 1 || name_length > 255 || type < 0 || type >= GGML_TYPE_COUNT ||
            ggml_blck_size((ggml_type) type) == 0)
            return fail("has a damaged tensor header at byte %lld (tensor %d)", start, count + 1);
        int64_t ne[3] = {1, 1, 1};
        for (int32_t d = 0; d < dims; ++d) {
            int32_t value = 0;
            if (!read32(value)) return fail("is cut short in tensor %d's shape", count + 1);
            if (value < 1 || value > (1 << 24)) return fail("has a tensor %d of impossible shape", count + 1);
            ne[d] = value;
        }
        std::string name(name_length, '\0');
        if (std::fread(name.data(), 1, name_length, file) != (size_t) name_length)
            return fail("is cut short in tensor %d's name", count + 1);
        if (ne[0] % ggml_blck_size((ggml_type) type) != 0)
            return fail("has tensor '%s' whose rows do not fit its type", name.c_str());
        const long long bytes = (long long) ggml_row_size((ggml_type) type, ne[0]) * ne[1] * ne[2];
        const long long here = std::ftell(file);
        if (here + bytes > size)
            return fail("is cut short: it ends at byte %lld, inside tensor '%s', which needs %lld bytes more",
                        size, name.c_str(), here + bytes - size);
        std::fseek(file, (long) bytes, SEEK_CUR);
        ++count;
    }
    if (count == 0) return fail("holds no tensors");
    std::fclose(file);
    return std::string();
}

struct deadline {
    std::chrono::steady_clock::time_point end;
    bool limited;
    std::atomic<bool> passed{false};
};

bool past_deadline(void *data) {
    auto *d = static_cast<deadline *>(data);
    if (!d->limited) return false;
    if (std::chrono::steady_clock::now() >= d->end) d->passed.store(true);
    return d->passed.load();
}

bool encoder_may_begin(whisper_context *, whisper_state *, void *data) { return !past_deadline(data); }

std::vector<whisper_token> tokenize(whisper_context *context, const char *text) {
    std::vector<whisper_token> tokens(256);
    int n = whisper_tokenize(context, text, tokens.data(), (int) tokens.size());
    if (n < 0) {
        tokens.resize(-n);
        n = whisper_tokenize(context, text, tokens.data(), (int) tokens.size());
    }
    tokens.resize(n < 0 ? 0 : n);
    return tokens;
}

// The tokens whisper_full decoded before the text, as it builds them for one segment without context or
// timestamps: the previous-text marker and the prompt's last tokens (at most half the text context, less the
// marker), then start-of-transcript and no-timestamps (tiny.en has no language or task token).
std::vector<whisper_token> decoding_prefix(whisper_context *context, const char *prompt) {
    std::vector<whisper_token> prefix;
    if (prompt != nullptr) {
        const std::vector<whisper_token> tokens = tokenize(context, prompt);
        const size_t keep = std::min<size_t>(tokens.size(), (size_t) std::max(0, whisper_n_text_ctx(context) / 2 - 1));
        if (keep > 0) {
            prefix.push_back(whisper_token_prev(context));
            prefix.insert(prefix.end(), tokens.end() - keep, tokens.end());
        }
    }
    prefix.push_back(whisper_token_sot(context));
    if (whisper_is_multilingual(context)) {
        prefix.push_back(whisper_token_lang(context, whisper_lang_id("en")));
        prefix.push_back(whisper_token_transcribe(context));
    }
    prefix.push_back(whisper_token_not(context));
    return prefix;
}

// The log probability of `token` among the tokens a transcript may hold (text and end of text; the special and
// timestamp tokens, which a transcription without timestamps never writes, are left out as whisper_full does).
double text_log_probability(const float *logits, whisper_token eot, whisper_token token) {
    float top = -INFINITY;
    for (whisper_token i = 0; i <= eot; ++i) top = std::max(top, logits[i]);
    double sum = 0;
    for (whisper_token i = 0; i <= eot; ++i) sum += std::exp((double) logits[i] - top);
    return (double) logits[token] - top - std::log(sum);
}

// Decodes `n` tokens at position `past` of the utterance in hand and returns the logits after the last of them
// (whisper.cpp copies out only the last row of a batch, though its pointer is to the first).
const float *decode_last(ssw_model *model, const whisper_token *tokens, int n, int past) {
    if (whisper_decode_with_state(model->context, model->state, tokens, n, past, model->threads) != 0)
        throw std::runtime_error(last_log_error.empty() ? "the decoder failed" : last_log_error);
    return whisper_get_logits_from_state(model->state) + (size_t) (n - 1) * whisper_n_vocab(model->context);
}

// The distribution of the first word after the prompt, as a copy: from the prompt the transcription left in the
// decoder's cache (only its last token decoded again), or, with `fresh` or without that cache, the whole prompt.
std::vector<float> prompt_row(ssw_model *model, bool fresh) {
    const std::vector<whisper_token> &prefix = model->prefix;
    const int n = (int) prefix.size();
    const float *row;
    if (model->prefix_cached && !fresh) {
        row = decode_last(model, prefix.data() + n - 1, 1, n - 1);
    } else {
        row = decode_last(model, prefix.data(), n, 0);
        model->prefix_cached = true;
    }
    return std::vector<float>(row, row + whisper_n_vocab(model->context));
}

// Checks what scoring and searching both need; nil, or the sentence to give back.
const char *not_ready(const ssw_model *model) {
    if (model->state == nullptr || !model->encoded) return "no utterance to score against: ssw_transcribe must come first";
    return nullptr;
}

}  // namespace

extern "C" int ssw_api_version(void) { return SSW_API_VERSION; }

extern "C" void ssw_set_threads(ssw_model *model, int threads) {
    if (model != nullptr) model->threads = threads < 1 ? 1 : threads;
}

extern "C" ssw_model *ssw_open(const char *path, int threads, char *error, size_t error_size) {
    try {
        install_log_once();
        if (path == nullptr) { put(error, error_size, "no model file was named"); return nullptr; }
        const std::string problem = check_model_file(path);
        if (!problem.empty()) { put(error, error_size, "%s", problem.c_str()); return nullptr; }
        last_log_error.clear();
        whisper_context_params params = whisper_context_default_params();
        params.use_gpu = false;
        params.flash_attn = false;
        whisper_context *context = whisper_init_from_file_with_params_no_state(path, params);
        if (context == nullptr) {
            put(error, error_size, "was refused by whisper.cpp: %s",
                last_log_error.empty() ? "no reason given" : last_log_error.c_str());
            return nullptr;
        }
        auto *model = new ssw_model{context, threads < 1 ? 1 : threads};
        return model;
    } catch (const std::exception &e) {
        put(error, error_size, "could not be loaded: %s", e.what());
    } catch (...) {
        put(error, error_size, "could not be loaded (an unknown C++ exception)");
    }
    return nullptr;
}

extern "C" void ssw_describe(const ssw_model *model, char *out, size_t out_size) {
    if (model == nullptr) { put(out, out_size, "no model"); return; }
    whisper_context *context = model->context;
    const int ftype = whisper_model_ftype(context);
    const char *type = ggml_type_name(ggml_ftype_to_ggml_type((ggml_ftype) ftype));
    put(out, out_size, "%s, %s, %s", whisper_model_type_readable(context),
        whisper_is_multilingual(context) ? "multilingual" : "English only", type ? type : "unknown weights");
}

extern "C" int ssw_transcribe(ssw_model *model, const float *samples, int sample_count, const char *prompt,
                              int audio_ctx, int max_tokens, int time_limit_ms, char *text, size_t text_size,
                              double *mean_logprob, char *error, size_t error_size) {
    put(text, text_size, "%s", "");
    if (mean_logprob) *mean_logprob = 0;
    if (model == nullptr || samples == nullptr || sample_count <= 0) {
        put(error, error_size, "nothing to transcribe (no model or no samples)");
        return SSW_ERROR;
    }
    try {
        whisper_context *context = model->context;
        model->encoded = false;
        model->prefix_cached = false;
        if (model->state == nullptr) {
            last_log_error.clear();
            model->state = whisper_init_state(context);
            if (model->state == nullptr) {
                put(error, error_size, "whisper.cpp could not make a decoder state: %s",
                    last_log_error.empty() ? "no reason given" : last_log_error.c_str());
                return SSW_ERROR;
            }
        }
        whisper_state *state = model->state;
        deadline limit;
        limit.limited = time_limit_ms > 0;
        limit.end = std::chrono::steady_clock::now() + std::chrono::milliseconds(time_limit_ms);

        whisper_full_params p = whisper_full_default_params(WHISPER_SAMPLING_GREEDY);
        p.n_threads = model->threads;
        p.no_context = true;
        p.no_timestamps = true;
        p.single_segment = true;
        p.print_special = false;
        p.print_progress = false;
        p.print_realtime = false;
        p.print_timestamps = false;
        p.token_timestamps = false;
        p.language = "en";
        p.detect_language = false;
        p.translate = false;
        const int full_ctx = whisper_n_audio_ctx(context);
        p.audio_ctx = audio_ctx <= 0 || audio_ctx > full_ctx ? 0 : audio_ctx;
        p.max_tokens = max_tokens > 0 ? max_tokens : 0;
        p.initial_prompt = prompt != nullptr && prompt[0] != '\0' ? prompt : nullptr;
        p.temperature = 0.0f;
        p.temperature_inc = 0.0f;  // no retries at higher temperatures: one greedy pass
        p.greedy.best_of = 1;
        p.suppress_blank = true;
        p.suppress_nst = true;
        p.abort_callback = past_deadline;
        p.abort_callback_user_data = &limit;
        p.encoder_begin_callback = encoder_may_begin;
        p.encoder_begin_callback_user_data = &limit;

        last_log_error.clear();
        const int result = whisper_full_with_state(context, state, p, samples, sample_count);
        if (limit.passed.load()) {
            put(error, error_size, "the transcription was stopped after its limit of %d ms", time_limit_ms);
            return SSW_TIMED_OUT;
        }
        if (result != 0) {
            put(error, error_size, "whisper.cpp failed (%d): %s", result,
                last_log_error.empty() ? "no reason given" : last_log_error.c_str());
            return SSW_ERROR;
        }
        std::string words;
        double sum = 0;
        int counted = 0;
        const whisper_token eot = whisper_token_eot(context);
        const int segments = whisper_full_n_segments_from_state(state);
        for (int s = 0; s < segments; ++s) {
            const char *segment = whisper_full_get_segment_text_from_state(state, s);
            if (segment) words += segment;
            const int n = whisper_full_n_tokens_from_state(state, s);
            for (int t = 0; t < n; ++t) {
                const whisper_token_data data = whisper_full_get_token_data_from_state(state, s, t);
                if (data.id >= eot) continue;
                sum += data.plog;
                ++counted;
            }
        }
        size_t first = words.find_first_not_of(' ');
        words = first == std::string::npos ? std::string() : words.substr(first);
        put(text, text_size, "%s", words.c_str());
        if (mean_logprob) *mean_logprob = counted > 0 ? sum / counted : 0;
        model->prefix = decoding_prefix(context, p.initial_prompt);
        model->encoded = true;
        // One greedy pass at temperature 0 (no fallback): whisper_full decoded exactly this prefix into sequence 0
        // and wrote the text after it, which the scores' own decoding replaces.
        model->prefix_cached = true;
        return SSW_OK;
    } catch (const std::exception &e) {
        put(error, error_size, "whisper.cpp failed: %s", e.what());
    } catch (...) {
        put(error, error_size, "whisper.cpp failed (an unknown C++ exception)");
    }
    return SSW_ERROR;
}

extern "C" int ssw_score(ssw_model *model, const char *const *texts, int count, int flags, int time_limit_ms,
                          double *scores, double *end_scores, int *token_counts, char *error, size_t error_size) {
    if (model == nullptr || texts == nullptr || scores == nullptr || count < 0) {
        put(error, error_size, "nothing to score (no model or no texts)");
        return SSW_ERROR;
    }
    if (const char *why = not_ready(model)) {
        put(error, error_size, "%s", why);
        return SSW_ERROR;
    }
    try {
        whisper_context *context = model->context;
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(time_limit_ms);
        const whisper_token eot = whisper_token_eot(context);
        const int text_context = whisper_n_text_ctx(context);
        last_log_error.clear();
        const std::vector<whisper_token> &prefix = model->prefix;
        const std::vector<float> first = prompt_row(model, flags & SSW_SCORE_FRESH_PREFIX);
        for (int c = 0; c < count; ++c) {
            const std::vector<whisper_token> tokens = tokenize(context, texts[c] ? texts[c] : "");
            if ((int) (prefix.size() + tokens.size()) + 1 > text_context) {
                put(error, error_size, "text %d is too long to score (%zu tokens)", c + 1, tokens.size());
                return SSW_ERROR;
            }
            double sum = 0;
            const float *logits = first.data();
            int past = (int) prefix.size();
            for (const whisper_token token : tokens) {
                if (token >= eot) continue;  // the text's own words only
                sum += text_log_probability(logits, eot, token);
                if (time_limit_ms > 0 && std::chrono::steady_clock::now() >= end) {
                    put(error, error_size, "scoring was stopped after its limit of %d ms", time_limit_ms);
                    return SSW_TIMED_OUT;
                }
                logits = decode_last(model, &token, 1, past++);
            }
            const double end = text_log_probability(logits, eot, eot);
            scores[c] = sum + end;
            if (end_scores) end_scores[c] = end;
            if (token_counts) token_counts[c] = (int) tokens.size() + 1;
        }
        return SSW_OK;
    } catch (const std::exception &e) {
        put(error, error_size, "whisper.cpp failed while scoring: %s", e.what());
    } catch (...) {
        put(error, error_size, "whisper.cpp failed while scoring (an unknown C++ exception)");
    }
    return SSW_ERROR;
}

extern "C" int ssw_set_sentences(ssw_model *model, const char *const *texts, int count, char *error, size_t error_size) {
    if (model == nullptr || (texts == nullptr && count > 0) || count < 0) {
        put(error, error_size, "no model or no sentences");
        return SSW_ERROR;
    }
    try {
        const whisper_token eot = whisper_token_eot(model->context);
        std::vector<ssw_trie_node> trie(1);
        std::vector<int> lengths(count, 0);
        for (int c = 0; c < count; ++c) {
            int node = 0;
            for (const whisper_token token : tokenize(model->context, texts[c] ? texts[c] : "")) {
                if (token >= eot) continue;
                int next = -1;
                for (const auto &child : trie[node].children) if (child.first == token) { next = child.second; break; }
                if (next < 0) {
                    next = (int) trie.size();
                    trie.push_back(ssw_trie_node{token, node, {}, {}});
                    trie[node].children.emplace_back(token, next);
                }
                node = next;
                ++lengths[c];
            }
            trie[node].ends.push_back(c);
        }
        model->trie = std::move(trie);
        model->sentence_tokens = std::move(lengths);
        return SSW_OK;
    } catch (const std::exception &e) {
        put(error, error_size, "could not take the sentences: %s", e.what());
    } catch (...) {
        put(error, error_size, "could not take the sentences (an unknown C++ exception)");
    }
    return SSW_ERROR;
}

extern "C" int ssw_search(ssw_model *model, int beam, int n_best, int time_limit_ms, int *indices, double *scores,
                          double *end_scores, int *token_counts, int *found, char *error, size_t error_size) {
    if (found) *found = 0;
    if (model == nullptr || indices == nullptr || scores == nullptr || n_best < 1 || beam < 1) {
        put(error, error_size, "nothing to search (no model, no room for an answer, or a beam of %d)", beam);
        return SSW_ERROR;
    }
    if (const char *why = not_ready(model)) {
        put(error, error_size, "%s", why);
        return SSW_ERROR;
    }
    if (model->trie.size() < 2) {
        put(error, error_size, "no sentences to search among: ssw_set_sentences must come first");
        return SSW_ERROR;
    }
    try {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(time_limit_ms);
        const whisper_token eot = whisper_token_eot(model->context);
        const int n_prefix = (int) model->prefix.size();
        const std::vector<ssw_trie_node> &trie = model->trie;
        last_log_error.clear();
        const std::vector<float> root_row = prompt_row(model, false);
        // The path of tokens now in the cache after the prefix, so that a hypothesis sharing its start decodes only
        // the rest.
        std::vector<whisper_token> cached;
        auto path_of = [&](int node) {
            std::vector<whisper_token> path;
            for (int n = node; n > 0; n = trie[n].parent) path.push_back(trie[n].token);
            std::reverse(path.begin(), path.end());
            return path;
        };
        std::vector<double> log_probs(eot + 1);
        // Log probabilities of the text tokens and the end of text in one row.
        auto normalise = [&](const float *row) {
            float top = -INFINITY;
            for (whisper_token i = 0; i <= eot; ++i) top = std::max(top, row[i]);
            double sum = 0;
            for (whisper_token i = 0; i <= eot; ++i) sum += std::exp((double) row[i] - top);
            const double base = (double) top + std::log(sum);
            for (whisper_token i = 0; i <= eot; ++i) log_probs[i] = (double) row[i] - base;
        };
        struct hypothesis { int node; double score; };
        std::vector<hypothesis> live{{0, 0.0}};
        struct finished { double score; double end; int sentence; };
        std::vector<finished> done;
        auto worst_kept = [&]() {
            if ((int) done.size() < n_best) return -(double) INFINITY;
            std::vector<double> s;
            for (const auto &d : done) s.push_back(d.score);
            std::nth_element(s.begin(), s.begin() + (n_best - 1), s.end(), std::greater<double>());
            return s[n_best - 1];
        };
        while (!live.empty()) {
            std::vector<hypothesis> next;
            for (const hypothesis &h : live) {
                if (time_limit_ms > 0 && std::chrono::steady_clock::now() >= end) {
                    put(error, error_size, "the search was stopped after its limit of %d ms", time_limit_ms);
                    return SSW_TIMED_OUT;
                }
                if (h.node == 0) {
                    normalise(root_row.data());
                } else {
                    const std::vector<whisper_token> path = path_of(h.node);
                    size_t common = 0;
                    while (common < cached.size() && common < path.size() && cached[common] == path[common]) ++common;
                    if (common == path.size()) --common;  // its logits are not kept: decode its last token again
                    const float *row = decode_last(model, path.data() + common, (int) (path.size() - common), n_prefix + (int) common);
                    cached = path;
                    normalise(row);
                }
                for (const int sentence : trie[h.node].ends) done.push_back({h.score + log_probs[eot], log_probs[eot], sentence});
                for (const auto &child : trie[h.node].children)
                    next.push_back({child.second, h.score + log_probs[child.first]});
            }
            // Scores only fall as a sentence goes on: a hypothesis already below the n-th best finished sentence
            // cannot reach the answer.
            const double floor = worst_kept();
            next.erase(std::remove_if(next.begin(), next.end(), [&](const hypothesis &h) { return h.score <= floor; }),
                       next.end());
            std::sort(next.begin(), next.end(), [](const hypothesis &a, const hypothesis &b) { return a.score > b.score; });
            if ((int) next.size() > beam) next.resize(beam);
            live = std::move(next);
        }
        std::sort(done.begin(), done.end(), [](const finished &a, const finished &b) { return a.score > b.score; });
        const int n = std::min<int>(n_best, (int) done.size());
        for (int i = 0; i < n; ++i) {
            indices[i] = done[i].sentence;
            scores[i] = done[i].score;
            if (end_scores) end_scores[i] = done[i].end;
            if (token_counts) token_counts[i] = model->sentence_tokens[done[i].sentence] + 1;
        }
        if (found) *found = n;
        return SSW_OK;
    } catch (const std::exception &e) {
        put(error, error_size, "whisper.cpp failed while searching: %s", e.what());
    } catch (...) {
        put(error, error_size, "whisper.cpp failed while searching (an unknown C++ exception)");
    }
    return SSW_ERROR;
}

extern "C" void ssw_release(ssw_model *model) {
    if (model == nullptr) return;
    if (model->state != nullptr) whisper_free_state(model->state);
    model->state = nullptr;
    model->encoded = false;
    model->prefix_cached = false;
    // The state's many smaller blocks (the decoder's logits for a whole prompt alone are about 46 MB) were freed into
    // the calling thread's malloc arena, which glibc keeps unless asked: hand them back to the system.
    malloc_trim(0);
}

extern "C" void ssw_close(ssw_model *model) {
    if (model == nullptr) return;
    ssw_release(model);
    whisper_free(model->context);
    delete model;
}

/*
 * The Stratus host interface for modules written in C without a C library
 * (clang --target=wasm32 -nostdlib -fno-builtin). See docs/hooks.md.
 *
 * A call reads its input (JSON) with stratus_input, writes its answer (JSON)
 * with stratus_output, logs with stratus_log, and reads or writes records
 * with stratus_request / stratus_response (the CloudKit records API, as JSON).
 * Besides the imports, this header has what the examples need: a bump
 * allocator, a few string functions, a reader for the fields of the record in
 * the input, and a writer for the answer.
 */
#ifndef STRATUS_H
#define STRATUS_H

#define STRATUS_IMPORT(name) __attribute__((import_module("stratus"), import_name(#name)))
#define STRATUS_EXPORT(name) __attribute__((export_name(#name)))

STRATUS_IMPORT(input_size) int stratus_input_size(void);
STRATUS_IMPORT(input) void stratus_input(char *buffer);
STRATUS_IMPORT(output) void stratus_output(const char *bytes, int length);
STRATUS_IMPORT(log) void stratus_log(const char *bytes, int length);
STRATUS_IMPORT(request) int stratus_request(const char *json, int length);
STRATUS_IMPORT(response) void stratus_response(char *buffer);

typedef unsigned long size_t;

/* The compiler may call these for copies and zeroing even without a C library. */
void *memcpy(void *target, const void *source, size_t count) {
    unsigned char *to = target;
    const unsigned char *from = source;
    while (count--) *to++ = *from++;
    return target;
}

void *memset(void *target, int value, size_t count) {
    unsigned char *to = target;
    while (count--) *to++ = (unsigned char)value;
    return target;
}

/* Memory: a bump allocator over the module's linear memory, grown as needed. */
extern unsigned char __heap_base;
static unsigned long stratus_heap_top;

static void *stratus_alloc(size_t size) {
    if (stratus_heap_top == 0) stratus_heap_top = (unsigned long)&__heap_base;
    unsigned long start = (stratus_heap_top + 7) & ~7ul;
    unsigned long end = start + size;
    unsigned long available = __builtin_wasm_memory_size(0) * 65536ul;
    if (end > available) {
        unsigned long pages = (end - available + 65535) / 65536;
        if (__builtin_wasm_memory_grow(0, pages) == (unsigned long)-1) __builtin_trap();
    }
    stratus_heap_top = end;
    return (void *)start;
}

static size_t stratus_strlen(const char *text) {
    size_t length = 0;
    while (text[length]) length++;
    return length;
}

static int stratus_starts_with(const char *text, const char *prefix) {
    while (*prefix) if (*text++ != *prefix++) return 0;
    return 1;
}

/* The first occurrence of needle in text, or 0. */
static const char *stratus_find(const char *text, const char *needle) {
    for (; *text; text++) if (stratus_starts_with(text, needle)) return text;
    return 0;
}

/* The call's input, read once, as a string ending in 0. */
static const char *stratus_read_input(void) {
    int size = stratus_input_size();
    char *input = stratus_alloc(size + 1);
    stratus_input(input);
    input[size] = 0;
    return input;
}

/* The JSON value of a record field ("fields":{"name":{"value":...}}), or 0. */
static const char *stratus_field_value(const char *input, const char *name) {
    const char *fields = stratus_find(input, "\"fields\":{");
    if (!fields) return 0;
    size_t length = stratus_strlen(name);
    char *key = stratus_alloc(length + 4);
    key[0] = '"';
    for (size_t i = 0; i < length; i++) key[i + 1] = name[i];
    key[length + 1] = '"';
    key[length + 2] = ':';
    key[length + 3] = 0;
    const char *field = stratus_find(fields, key);
    if (!field) return 0;
    const char *value = stratus_find(field, "\"value\":");
    return value ? value + 8 : 0;
}

/* A string field's length in bytes (escapes counted as written), or -1 when the field is missing or not a string. */
static int stratus_string_field_length(const char *input, const char *name) {
    const char *value = stratus_field_value(input, name);
    if (!value || *value != '"') return -1;
    int length = 0;
    for (value++; *value && *value != '"'; value++, length++) if (*value == '\\' && value[1]) value++;
    return length;
}

/* An integer field, in *result; 0 when the field is missing or not an integer. */
static int stratus_integer_field(const char *input, const char *name, long long *result) {
    const char *value = stratus_field_value(input, name);
    if (!value) return 0;
    int negative = *value == '-';
    if (negative) value++;
    if (*value < '0' || *value > '9') return 0;
    long long number = 0;
    while (*value >= '0' && *value <= '9') number = number * 10 + (*value++ - '0');
    if (*value == '.' || *value == 'e' || *value == 'E') return 0;
    *result = negative ? -number : number;
    return 1;
}

/* The length of the JSON value starting at value (an object, array, string, number or literal). */
static int stratus_json_value_length(const char *value) {
    const char *p = value;
    int depth = 0, in_string = 0;
    for (; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == '"') { in_string = 0; if (depth == 0) return (int)(p - value) + 1; }
        } else if (*p == '"') in_string = 1;
        else if (*p == '{' || *p == '[') depth++;
        else if (*p == '}' || *p == ']') {
            if (depth == 0) break;
            if (--depth == 0) return (int)(p - value) + 1;
        } else if (depth == 0 && (*p == ',')) break;
    }
    return (int)(p - value);
}

/* The JSON string value of the first "key" at or after text, copied into a new string ending in 0; 0 when absent. */
static char *stratus_string_after(const char *text, const char *key) {
    size_t length = stratus_strlen(key);
    char *pattern = stratus_alloc(length + 5);
    pattern[0] = '"';
    for (size_t i = 0; i < length; i++) pattern[i + 1] = key[i];
    pattern[length + 1] = '"';
    pattern[length + 2] = ':';
    pattern[length + 3] = '"';
    pattern[length + 4] = 0;
    const char *start = stratus_find(text, pattern);
    if (!start) return 0;
    start += length + 4;
    int size = 0;
    while (start[size] && start[size] != '"') size += start[size] == '\\' && start[size + 1] ? 2 : 1;
    char *value = stratus_alloc(size + 1);
    for (int i = 0; i < size; i++) value[i] = start[i];
    value[size] = 0;
    return value;
}

/* A growing string for answers and requests. */
typedef struct { char *bytes; int length; int capacity; } stratus_text;

static void stratus_append_bytes(stratus_text *text, const char *bytes, int length) {
    if (text->length + length > text->capacity) {
        int capacity = (text->capacity + length) * 2 + 64;
        char *bigger = stratus_alloc(capacity);
        for (int i = 0; i < text->length; i++) bigger[i] = text->bytes[i];
        text->bytes = bigger;
        text->capacity = capacity;
    }
    for (int i = 0; i < length; i++) text->bytes[text->length++] = bytes[i];
}

static void stratus_append(stratus_text *text, const char *string) {
    stratus_append_bytes(text, string, (int)stratus_strlen(string));
}

static void stratus_append_integer(stratus_text *text, long long number) {
    char digits[24];
    int count = 0;
    unsigned long long magnitude = number < 0 ? -(unsigned long long)number : (unsigned long long)number;
    do { digits[count++] = '0' + magnitude % 10; magnitude /= 10; } while (magnitude);
    if (number < 0) stratus_append(text, "-");
    while (count) stratus_append_bytes(text, &digits[--count], 1);
}

/* Appends a JSON string value (quoted, escaped). */
static void stratus_append_json_string(stratus_text *text, const char *string, int length) {
    stratus_append(text, "\"");
    for (int i = 0; i < length; i++) {
        char c = string[i];
        if (c == '"' || c == '\\') { stratus_append_bytes(text, "\\", 1); stratus_append_bytes(text, &c, 1); }
        else if ((unsigned char)c < 0x20) stratus_append(text, " ");
        else stratus_append_bytes(text, &c, 1);
    }
    stratus_append(text, "\"");
}

/* Sends a request to the host and returns its answer as a string ending in 0. */
static const char *stratus_call(const stratus_text *request) {
    int size = stratus_request(request->bytes, request->length);
    char *answer = stratus_alloc(size + 1);
    stratus_response(answer);
    answer[size] = 0;
    return answer;
}

static void stratus_log_text(const char *message) {
    stratus_log(message, (int)stratus_strlen(message));
}

/* Refuses a beforeSave write, or answers a call with an error: the reason becomes the record's error. */
static void stratus_refuse(const char *serverErrorCode, const char *reason) {
    stratus_text answer = {0};
    stratus_append(&answer, "{\"serverErrorCode\":\"");
    stratus_append(&answer, serverErrorCode);
    stratus_append(&answer, "\",\"reason\":");
    stratus_append_json_string(&answer, reason, (int)stratus_strlen(reason));
    stratus_append(&answer, "}");
    stratus_output(answer.bytes, answer.length);
}

#endif

/*
 * A callable function: POST /functions/1/{container}/{environment}/greet with
 * {"name": "Ann"} answers {"greeting": "Hello, Ann!", "signedIn": true}.
 *
 * clang --target=wasm32 -nostdlib -fno-builtin -O2 -Wl,--no-entry -o greet.wasm greet.c
 */
#include "stratus.h"

STRATUS_EXPORT(call) void call(void) {
    const char *input = stratus_read_input();
    const char *body = stratus_find(input, "\"body\":");
    char *name = body ? stratus_string_after(body, "name") : 0;
    if (!name || !*name) {
        stratus_refuse("BAD_REQUEST", "send {\"name\": ...}");
        return;
    }
    stratus_text answer = {0};
    stratus_append(&answer, "{\"greeting\":\"Hello, ");
    stratus_append(&answer, name);
    stratus_append(&answer, "!\",\"signedIn\":");
    stratus_append(&answer, stratus_find(input, "\"userRecordName\":") ? "true" : "false");
    stratus_append(&answer, "}");
    stratus_output(answer.bytes, answer.length);
}

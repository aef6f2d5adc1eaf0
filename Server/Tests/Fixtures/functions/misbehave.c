/* Modules that misbehave on purpose, and a few that pass data through, for the tests of functions. */
#include "../../../Examples/functions/stratus.h"

STRATUS_EXPORT(trap) void trap(void) { __builtin_trap(); }

STRATUS_EXPORT(spin) void spin(void) {
    volatile int forever = 1;
    while (forever) {}
}

/* Asks for memory until refused, then traps as a C library's malloc would abort. */
STRATUS_EXPORT(hog) void hog(void) {
    for (;;) if (__builtin_wasm_memory_grow(0, 16) == (unsigned long)-1) __builtin_trap();
}

STRATUS_EXPORT(bad_pointer) void bad_pointer(void) { stratus_output((const char *)0x7ffffff0, 4096); }

STRATUS_EXPORT(exit_status) int exit_status(void) { return 3; }

STRATUS_EXPORT(echo) void echo(void) {
    const char *input = stratus_read_input();
    stratus_log_text("echoing the input");
    stratus_output(input, (int)stratus_strlen(input));
}

/* Sends the "request" object of the call's body to the host and answers with the host's answer. */
STRATUS_EXPORT(forward) void forward(void) {
    const char *input = stratus_read_input();
    const char *request = stratus_find(input, "\"request\":");
    if (!request) { stratus_refuse("BAD_REQUEST", "no request to forward"); return; }
    request += 10;
    stratus_text text = {0};
    stratus_append_bytes(&text, request, stratus_json_value_length(request));
    const char *answer = stratus_call(&text);
    stratus_output(answer, (int)stratus_strlen(answer));
}

/* Counts its calls in memory: every call must answer 1, as in a fresh instance. */
static int calls;
STRATUS_EXPORT(count_calls) void count_calls(void) {
    calls++;
    char digit = '0' + (calls % 10);
    stratus_output(&digit, 1);
}

__attribute__((import_module("wasi_snapshot_preview1"), import_name("proc_exit"))) void proc_exit(int status);

/* Ends the call with proc_exit(0) deep in a stack frame: the next call still starts clean. */
static void leave_from_deep(volatile char *frame) {
    frame[0] = 1;
    stratus_output("{\"left\":true}", 13);
    proc_exit(0);
}

STRATUS_EXPORT(exit_early) void exit_early(void) {
    volatile char frame[4096];
    leave_from_deep(frame);
}

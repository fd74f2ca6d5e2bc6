/* The error domain, and JSON text helpers every request builder uses. */
#include "private.h"
#include <math.h>
#include <stdio.h>

G_DEFINE_QUARK(layoutd-error-quark, layoutd_error)

GType layoutd_error_get_type(void)
{
    static gsize type;
    if (g_once_init_enter(&type)) {
        static const GEnumValue values[] = {
            {LAYOUTD_ERROR_IO, "LAYOUTD_ERROR_IO", "io"},
            {LAYOUTD_ERROR_CONNECTION_CLOSED, "LAYOUTD_ERROR_CONNECTION_CLOSED", "connection-closed"},
            {LAYOUTD_ERROR_PROTOCOL, "LAYOUTD_ERROR_PROTOCOL", "protocol"},
            {LAYOUTD_ERROR_INVALID_ARGUMENT, "LAYOUTD_ERROR_INVALID_ARGUMENT", "invalid-argument"},
            {LAYOUTD_ERROR_TIMEOUT, "LAYOUTD_ERROR_TIMEOUT", "timeout"},
            {LAYOUTD_ERROR_DAEMON_SHUTDOWN, "LAYOUTD_ERROR_DAEMON_SHUTDOWN", "daemon-shutdown"},
            {0, NULL, NULL},
        };
        g_once_init_leave(&type, g_enum_register_static("LayoutdError", values));
    }
    return type;
}

GError *layoutd_gtk_error_from(const layoutd_error *err)
{
    /* Local codes are the C client's LAYOUTD_ERR_* (the same numbers as LayoutdError); the
       daemon's are its protocol codes. Either way the name leads the message, for people and
       for code that must tell two names sharing one code apart. */
    return g_error_new(LAYOUTD_ERROR, err->code, "%s: %s", err->name, err->message);
}

void layoutd_gtk_json_string(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': g_string_append(out, "\\\""); break;
        case '\\': g_string_append(out, "\\\\"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\r': g_string_append(out, "\\r"); break;
        case '\t': g_string_append(out, "\\t"); break;
        default:
            if (*p < 0x20) g_string_append_printf(out, "\\u%04x", *p);
            else g_string_append_c(out, (char)*p);
        }
    }
    g_string_append_c(out, '"');
}

void layoutd_gtk_json_number(GString *out, double v)
{
    if (!isfinite(v)) v = 0;
    if (v == floor(v) && fabs(v) < 1e15) g_string_append_printf(out, "%.0f", v);
    else {
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        g_string_append(out, g_ascii_dtostr(buf, sizeof buf, v));   /* locale-independent, round-trips */
    }
}

static void json_pair(GString *out, const char *key, const char *first, double a, const char *second, double b)
{
    g_string_append_printf(out, ",\"%s\":{\"%s\":", key, first);
    layoutd_gtk_json_number(out, a);
    g_string_append_printf(out, ",\"%s\":", second);
    layoutd_gtk_json_number(out, b);
    g_string_append_c(out, '}');
}

void layoutd_gtk_json_point(GString *out, const char *key, double x, double y)
{
    json_pair(out, key, "x", x, "y", y);
}

void layoutd_gtk_json_size(GString *out, const char *key, double width, double height)
{
    json_pair(out, key, "width", width, "height", height);
}

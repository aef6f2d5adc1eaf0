/// The sizes the server accepts, in one place: the HTTP layer reads every request with one of these and writes
/// no size of its own (a test checks its sources). Larger uploads are bounded by ``ServerConfiguration``'s
/// `maximumRequestBytes` and the assets' own limits.
public enum RequestLimits {
    // MARK: Bodies

    /// A JSON body that carries settings or a few values: most of the admin, account and database APIs.
    public static let jsonBody = 64 * 1024
    /// A form or a small JSON body: sign-ins, enrolments, the hosted pages.
    public static let formBody = 16 * 1024
    /// A token or a secret sent alone.
    public static let tokenBody = 4096
    /// A mail template, or the one to preview.
    public static let templateBody = 256 * 1024
    /// A schema, as text or JSON.
    public static let schemaBody = 4 * 1024 * 1024
    /// An answer from another server the server calls (a provider, Apple).
    public static let upstreamAnswer = 64 * 1024
    /// The framework's own cap on a body: a backstop above the largest of the limits above.
    public static let frameworkBody = 64 * 1024 * 1024

    // MARK: Memory for bodies

    /// What the bodies a process holds at once may cost: 96 MiB, which keeps a server with large requests arriving
    /// together under 200 MB.
    public static let bodyBudget = 96 * 1024 * 1024
    /// The first bytes of each body, which cost nothing from the budget: ordinary requests are small, and are never
    /// refused because a large one is being decoded.
    public static let freeBytesPerBody = 256 * 1024

    // MARK: Heads

    /// The longest path and query accepted.
    public static let targetBytes = 8 * 1024
    /// The longest single header value accepted.
    public static let headerBytes = 8 * 1024
    /// The most header bytes, names and values, accepted in all.
    public static let headersBytes = 32 * 1024
    /// The most a head (or a line) may take before the connection guard leaves it to the parser.
    public static let guardedHeadBytes = 128 * 1024
    /// The parser's own limits, above those the server answers first and more precisely.
    public static let parserHeaderFieldBytes = 64 * 1024
    public static let parserHeaderListBytes = 96 * 1024
    public static let parserHeaderFields = 200

    // MARK: Uploads

    /// The longest header block of a multipart part.
    public static let multipartHeaderBytes = 16 * 1024
    /// How many bytes a multipart envelope may add to the file it carries.
    public static let multipartOverhead: Int64 = 1024 * 1024
    /// Bytes collected from an upload before each write to the blob store.
    public static let uploadWriteBytes = 1024 * 1024
    /// Bytes of a file sent in one piece of an answer (a user's export).
    public static let downloadChunkBytes = 256 * 1024
}

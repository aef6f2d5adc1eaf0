/// The documentation's Swift examples, compiled: `DocsSnippetsPlugin` turns every `swift` code block of the
/// README and `docs/` into a function of this module, so an example that stops compiling fails the build.
///
/// The functions are never called here; the examples run against a server in `ExamplesEndToEndTests`.
public enum DocsSnippets {}

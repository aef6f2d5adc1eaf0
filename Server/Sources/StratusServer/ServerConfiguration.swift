import StratusServices

/// The server's settings (``StratusServices/ServerConfiguration``), named so that HummingbirdCore's type of the same name does not hide it.
public typealias ServerConfiguration = StratusServices.ServerConfiguration

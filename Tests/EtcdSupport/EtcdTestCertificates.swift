// EtcdTestCertificates: the certificates of a TLS test cluster, made at test time with the
// `openssl` command line into the cluster's directory (removed with it): a certificate
// authority, a member certificate it signed for 127.0.0.1 (usable as a client certificate too:
// etcd's JSON gateway connects to its own gRPC server with it), a client certificate it signed,
// and a second, unrelated authority that signed nothing the cluster shows (the "wrong CA" of the
// tests).

import Foundation

/// PEM files for a TLS test cluster and its clients, made with `openssl`.
///
/// ```swift
/// let cluster = try EtcdCluster(memberCount: 1, tls: .serverOnly)   // makes its own
/// let authority = cluster.certificates?.authority
/// ```
public struct EtcdTestCertificates: Sendable {
    /// The directory holding the files.
    public let directory: String
    /// The authority that signed the member's and the client's certificates.
    public var authority: String { "\(directory)/ca.pem" }
    /// An authority that signed neither.
    public var otherAuthority: String { "\(directory)/other-ca.pem" }
    /// The member's certificate (subject alternative name IP 127.0.0.1).
    public var memberCertificate: String { "\(directory)/member.pem" }
    /// The member certificate's private key.
    public var memberKey: String { "\(directory)/member-key.pem" }
    /// The client's certificate.
    public var clientCertificate: String { "\(directory)/client.pem" }
    /// The client certificate's private key.
    public var clientKey: String { "\(directory)/client-key.pem" }
    /// How many days the client certificate is valid from its making (the authority: 30).
    public static let clientValidityDays = 2

    /// Makes every file in `directory` (created when missing).
    ///
    /// ```swift
    /// let certificates = try EtcdTestCertificates(in: NSTemporaryDirectory() + "certs")
    /// ```
    public init(in directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let extensions = """
            [member]
            subjectAltName = IP:127.0.0.1
            extendedKeyUsage = serverAuth, clientAuth
            [client]
            extendedKeyUsage = clientAuth
            """
        try extensions.write(toFile: "\(directory)/extensions.cnf", atomically: true, encoding: .utf8)
        for (name, subject) in [("ca", "/CN=larder test CA"), ("other-ca", "/CN=another CA")] {
            try openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", subject,
                         "-keyout", "\(directory)/\(name)-key.pem", "-out", "\(directory)/\(name).pem"])
        }
        try sign("member", subject: "/CN=127.0.0.1", days: 30)
        try sign("client", subject: "/CN=larder client", days: Self.clientValidityDays)
    }

    private func sign(_ name: String, subject: String, days: Int) throws {
        try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", subject,
                     "-keyout", "\(directory)/\(name)-key.pem", "-out", "\(directory)/\(name).csr"])
        try openssl(["x509", "-req", "-in", "\(directory)/\(name).csr", "-CA", authority,
                     "-CAkey", "\(directory)/ca-key.pem", "-CAcreateserial", "-days", String(days),
                     "-extfile", "\(directory)/extensions.cnf", "-extensions", name,
                     "-out", "\(directory)/\(name).pem"])
    }

    private func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw EtcdClusterError.cannotStart(reason: "cannot run openssl: \(error)")
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw EtcdClusterError.cannotStart(reason: "openssl \(arguments[0]) failed: \(String(decoding: message, as: UTF8.self))")
        }
    }
}

// EtcdTLSConfiguration: the TLS configuration of an EtcdClient's https:// requests, made from an
// EtcdSecurity's files when the backend opens. Every file is hostile: read with a size limit,
// parsed by NIOSSL (BoringSSL), and each way it fails (missing, not PEM, no certificate in it,
// expired or not yet valid, a key that is not the certificate's) is EtcdError.unusableSecurityFile
// naming the file, so that a misconfigured deployment says which file at open, not a handshake
// error on the first save.

import Foundation
import NIOSSL

extension EtcdSecurity {
    /// The largest certificate or key file read (a bundle of a few hundred certificates fits).
    static let maximumFileBytes = 4 << 20

    /// The client TLS configuration these options describe: the trusted authorities (the
    /// system's when none is given) and the client certificate, checked now.
    func tlsConfiguration(at now: Date = Date()) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = trustedCertificateAuthorityFile {
            let authorities = try Self.certificates(in: file)
            guard authorities.contains(where: { Self.validityProblem(of: $0, at: now) == nil }) else {
                throw EtcdError.unusableSecurityFile(path: file, reason: Self.validityProblem(of: authorities[0], at: now) ?? "no valid certificate")
            }
            configuration.trustRoots = .certificates(authorities)
        }
        if let client = clientCertificate {
            let chain = try Self.certificates(in: client.certificateFile)
            if let problem = Self.validityProblem(of: chain[0], at: now) {
                throw EtcdError.unusableSecurityFile(path: client.certificateFile, reason: problem)
            }
            configuration.certificateChain = chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(try Self.privateKey(in: client.keyFile))
            do {
                // BoringSSL checks the key against the certificate when a context is made.
                _ = try NIOSSLContext(configuration: configuration)
            } catch {
                throw EtcdError.unusableSecurityFile(path: client.keyFile,
                                                     reason: "the key is not the one of \(client.certificateFile) (\(error))")
            }
        }
        return configuration
    }

    private static func contents(of path: String) throws -> [UInt8] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw EtcdError.unusableSecurityFile(path: path, reason: "cannot be read (\(error.localizedDescription))")
        }
        guard data.count <= maximumFileBytes else {
            throw EtcdError.unusableSecurityFile(path: path, reason: "\(data.count) bytes, over \(maximumFileBytes)")
        }
        return [UInt8](data)
    }

    /// The PEM certificates in `path`, at least one.
    private static func certificates(in path: String) throws -> [NIOSSLCertificate] {
        let bytes = try contents(of: path)
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
        } catch {
            throw EtcdError.unusableSecurityFile(path: path, reason: "not PEM certificates (\(error))")
        }
        guard !certificates.isEmpty else {
            throw EtcdError.unusableSecurityFile(path: path, reason: "holds no PEM certificate")
        }
        return certificates
    }

    private static func privateKey(in path: String) throws -> NIOSSLPrivateKey {
        let bytes = try contents(of: path)
        do {
            return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
        } catch {
            throw EtcdError.unusableSecurityFile(path: path, reason: "not an unencrypted PEM private key (\(error))")
        }
    }

    /// Why `certificate` is not valid at `now`, or nil when it is.
    private static func validityProblem(of certificate: NIOSSLCertificate, at now: Date) -> String? {
        let seconds = Int(now.timeIntervalSince1970)
        if seconds > Int(certificate.notValidAfter) {
            return "the certificate expired at \(Date(timeIntervalSince1970: Double(certificate.notValidAfter)))"
        }
        if seconds < Int(certificate.notValidBefore) {
            return "the certificate is not valid before \(Date(timeIntervalSince1970: Double(certificate.notValidBefore)))"
        }
        return nil
    }
}

// TLS and authentication against real etcd members: a one-member cluster that serves https://
// and asks for a client certificate, and one that serves https:// with authentication enabled
// and tokens that live two seconds unused. Their certificates are made at test time with openssl
// (EtcdTestCertificates). Files that cannot be used and a password meant for http:// are
// refused before anything is sent.

import EtcdTestSupport
import Foundation
import Larder
import LarderDocuments
import Testing
@testable import LarderEtcd

/// The secure clusters of this test process, each started on first use, with certificates of
/// its own (removed with it).
enum SecureClusters {
    /// Serves https:// and asks every client for a certificate the cluster's authority signed.
    static let mutualTLS: Result<EtcdCluster, EtcdClusterError> = Result {
        try EtcdCluster(memberCount: 1, tls: .clientCertificatesRequired)
    }.mapError { $0 as? EtcdClusterError ?? .cannotStart(reason: "\($0)") }

    static let rootPassword = "correct horse battery staple"
    /// Tokens live this many seconds unused.
    static let tokenLifetime = 2
    /// A user who may read and write the store `limited` and nothing else.
    static let limitedUser = EtcdCluster.PrefixUser(name: "larder", password: "only my prefix", prefix: "limited/")

    /// Serves https:// with authentication enabled for `root` and `limitedUser`.
    static let authenticated: Result<EtcdCluster, EtcdClusterError> = Result {
        let cluster = try EtcdCluster(memberCount: 1, tls: .serverOnly, authTokenTTL: tokenLifetime)
        try cluster.enableAuthentication(rootPassword: rootPassword, users: [limitedUser])
        return cluster
    }.mapError { $0 as? EtcdClusterError ?? .cannotStart(reason: "\($0)") }

    /// The certificates of `cluster` (one on https://).
    static func certificates(of cluster: EtcdCluster) throws -> EtcdTestCertificates {
        guard let certificates = cluster.certificates else { throw EtcdClusterError.cannotStart(reason: "a cluster without TLS") }
        return certificates
    }

    /// The options of a client of `mutualTLS`.
    static func clientSecurity() throws -> EtcdSecurity {
        let certificates = try certificates(of: mutualTLS.get())
        return EtcdSecurity(trustedCertificateAuthorityFile: certificates.authority,
                            clientCertificate: .init(certificateFile: certificates.clientCertificate, keyFile: certificates.clientKey))
    }

    /// The options of a client of `authenticated` with `password`.
    static func rootSecurity(password: String = rootPassword) throws -> EtcdSecurity {
        EtcdSecurity(trustedCertificateAuthorityFile: try certificates(of: authenticated.get()).authority,
                     credentials: .init(user: "root", password: password))
    }

    /// Two backends on `cluster` with `security`: the second's save reaches the first through
    /// its watch (exact keys, not "unknown"), so the watch too passed TLS and authentication.
    static func expectTheWatchSeesAnotherClientsSave(on cluster: EtcdCluster, security: EtcdSecurity, prefix: String) throws {
        let watching = try EtcdBackend(endpoints: cluster.endpoints, prefix: prefix, security: security)
        let saving = try EtcdBackend(endpoints: cluster.endpoints, prefix: prefix, security: security)
        var batch = WriteBatch()
        batch.put([42], forKey: [7], in: "t")
        try saving.apply(batch)
        #expect(try watching.refreshToNewestState() == .changed(keys: ["t": [[7]]]))
    }
}

@Suite struct EtcdTLSTests {
    @Test func aStoreSavesAndReadsThroughMutualTLS() throws {
        let cluster = try SecureClusters.mutualTLS.get()
        #expect(cluster.endpoints.allSatisfy { $0.hasPrefix("https://") })
        let prefix = EtcdTestStore.freshPrefix("tls")
        let store = try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: prefix,
                                                           security: SecureClusters.clientSecurity()))
        let notes = try store.collection("notes")
        let rowIDs = try (0 ..< 20).map { try notes.insert(["number": .int(Int64($0)), "text": .string("note \($0)")]) }
        try store.close()

        let again = try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: prefix,
                                                           security: SecureClusters.clientSecurity()))
        let reread = try again.collection("notes")
        #expect(try reread.count() == 20)
        for (number, rowID) in rowIDs.enumerated() {
            #expect(try reread.document(id: rowID)?["text"] == .string("note \(number)"))
        }
        try SecureClusters.expectTheWatchSeesAnotherClientsSave(on: cluster, security: SecureClusters.clientSecurity(),
                                                                prefix: EtcdTestStore.freshPrefix("tlswatch"))
    }

    @Test func aMemberCertificateAnotherAuthoritySignedIsATypedTLSFailure() throws {
        let cluster = try SecureClusters.mutualTLS.get()
        let certificates = try SecureClusters.certificates(of: cluster)
        var security = try SecureClusters.clientSecurity()
        security.trustedCertificateAuthorityFile = certificates.otherAuthority
        expectATLSFailureAtOnce(opening: cluster, with: security)
    }

    /// Opening a backend on `cluster` with `security` is a TLS failure naming the first
    /// endpoint, at once: a handshake that failed is not waited out like an unreachable member
    /// (under TLS 1.3 a member refusing a client certificate only closes the connection, and
    /// that too is told apart at once).
    private func expectATLSFailureAtOnce(opening cluster: EtcdCluster, with security: EtcdSecurity) {
        let start = Date()
        #expect {
            try EtcdBackend(endpoints: cluster.endpoints, prefix: "p", security: security)
        } throws: { error in
            guard case EtcdError.tlsFailure(let endpoint, _) = error else { return false }
            return endpoint == cluster.endpoints[0]
        }
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test func mutualTLSWithoutAClientCertificateIsATypedTLSFailure() throws {
        let cluster = try SecureClusters.mutualTLS.get()
        let security = EtcdSecurity(trustedCertificateAuthorityFile: try SecureClusters.certificates(of: cluster).authority)
        expectATLSFailureAtOnce(opening: cluster, with: security)
    }

    @Test func anHTTPSEndpointIsNotTrustedWithoutItsAuthority() throws {
        // No authority given: the system's trust roots, which never signed the test authority.
        let cluster = try SecureClusters.mutualTLS.get()
        #expect {
            try EtcdBackend(endpoints: cluster.endpoints, prefix: "p")
        } throws: { error in
            guard case EtcdError.tlsFailure = error else { return false }
            return true
        }
    }

    @Test func missingOrGarbledSecurityFilesAreTypedErrors() throws {
        let certificates = try SecureClusters.certificates(of: SecureClusters.mutualTLS.get())
        let garbled = certificates.directory + "/garbled-\(UUID().uuidString).pem"
        try Data("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n".utf8)
            .write(to: URL(fileURLWithPath: garbled))
        defer { try? FileManager.default.removeItem(atPath: garbled) }
        let missing = certificates.directory + "/missing.pem"
        let cases: [(EtcdSecurity, String)] = [
            (EtcdSecurity(trustedCertificateAuthorityFile: missing), missing),
            (EtcdSecurity(trustedCertificateAuthorityFile: garbled), garbled),
            // A private key is no certificate.
            (EtcdSecurity(trustedCertificateAuthorityFile: certificates.clientKey), certificates.clientKey),
            (EtcdSecurity(clientCertificate: .init(certificateFile: garbled, keyFile: certificates.clientKey)), garbled),
            (EtcdSecurity(clientCertificate: .init(certificateFile: certificates.clientCertificate, keyFile: garbled)), garbled),
            // The member's key with the client's certificate.
            (EtcdSecurity(clientCertificate: .init(certificateFile: certificates.clientCertificate, keyFile: certificates.memberKey)),
             certificates.memberKey),
        ]
        for (security, file) in cases {
            #expect {
                try EtcdBackend(endpoints: ["https://127.0.0.1:1"], prefix: "p", security: security)
            } throws: { error in
                guard case EtcdError.unusableSecurityFile(let path, _) = error else { return false }
                return path == file
            }
        }
    }

    @Test func anExpiredClientCertificateIsATypedError() throws {
        let security = try SecureClusters.clientSecurity()
        // Valid today; expired once its days have passed (the authority's thirty have not).
        #expect(throws: Never.self) { try security.tlsConfiguration() }
        let later = Date().addingTimeInterval(Double(EtcdTestCertificates.clientValidityDays + 1) * 86400)
        #expect {
            try security.tlsConfiguration(at: later)
        } throws: { error in
            guard case EtcdError.unusableSecurityFile(let path, let reason) = error else { return false }
            return path == security.clientCertificate?.certificateFile && reason.contains("expired")
        }
        let beforeIssue = Date().addingTimeInterval(-86400)
        #expect {
            try security.tlsConfiguration(at: beforeIssue)
        } throws: { error in
            guard case EtcdError.unusableSecurityFile(_, let reason) = error else { return false }
            return reason.contains("not valid before")
        }
    }
}

@Suite struct EtcdAuthenticationTests {
    @Test func theRightPasswordSavesAndReads() throws {
        let cluster = try SecureClusters.authenticated.get()
        let prefix = EtcdTestStore.freshPrefix("auth")
        let store = try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: prefix,
                                                           security: SecureClusters.rootSecurity()))
        let notes = try store.collection("notes")
        let rowID = try notes.insert(["text": .string("for root's eyes")])
        try store.close()
        let again = try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: prefix,
                                                           security: SecureClusters.rootSecurity()))
        #expect(try again.collection("notes").document(id: rowID)?["text"] == .string("for root's eyes"))
        try SecureClusters.expectTheWatchSeesAnotherClientsSave(on: cluster, security: SecureClusters.rootSecurity(),
                                                                prefix: EtcdTestStore.freshPrefix("authwatch"))
    }

    @Test func aUserWithAPrefixOfItsOwnUsesItsStoreAndNoOther() throws {
        let cluster = try SecureClusters.authenticated.get()
        let user = SecureClusters.limitedUser
        var security = try SecureClusters.rootSecurity()
        security.credentials = .init(user: user.name, password: user.password)
        let store = try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: "limited", security: security))
        let rowID = try store.collection("notes").insert(["text": .string("mine")])
        try store.close()
        let again = try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: "limited", security: security))
        #expect(try again.collection("notes").document(id: rowID)?["text"] == .string("mine"))
        // Another store's keys are outside the user's role: etcd's "permission denied".
        #expect {
            try EtcdBackend(endpoints: cluster.endpoints, prefix: "elsewhere", security: security)
        } throws: { error in
            guard case EtcdError.refused(let code, let message) = error else { return false }
            return code == 7 && message.contains("permission denied")
        }
    }

    @Test func aWrongPasswordIsATypedError() throws {
        let cluster = try SecureClusters.authenticated.get()
        #expect {
            try EtcdBackend(endpoints: cluster.endpoints, prefix: "p", security: SecureClusters.rootSecurity(password: "wrong"))
        } throws: { error in
            guard case EtcdError.authenticationFailed(let user, _) = error else { return false }
            return user == "root"
        }
    }

    @Test func noCredentialsOnAClusterWithAuthenticationIsATypedError() throws {
        let cluster = try SecureClusters.authenticated.get()
        let security = EtcdSecurity(trustedCertificateAuthorityFile: try SecureClusters.certificates(of: cluster).authority)
        #expect {
            try EtcdBackend(endpoints: cluster.endpoints, prefix: "p", security: security)
        } throws: { error in
            guard case EtcdError.authenticationRequired = error else { return false }
            return true
        }
    }

    @Test func savesGoOnAfterTheTokenExpires() async throws {
        let cluster = try SecureClusters.authenticated.get()
        let prefix = EtcdTestStore.freshPrefix("token")
        let store = try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: prefix,
                                                           security: SecureClusters.rootSecurity()))
        let notes = try store.collection("notes")
        var rowIDs: [RowID] = []
        for round in 0 ..< 3 {
            rowIDs.append(try await notes.insert(["round": .int(Int64(round))]))
            // Unused for longer than its lifetime: etcd forgets the token. (Asleep without holding
            // one of the few threads the other tests' tasks run on.)
            try await Task.sleep(for: .milliseconds(SecureClusters.tokenLifetime * 1000 + 1500))
        }
        #expect(try await notes.count() == 3)
        try store.close()
        let again = try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: prefix,
                                                           security: SecureClusters.rootSecurity()))
        for (round, rowID) in rowIDs.enumerated() {
            #expect(try await again.collection("notes").document(id: rowID)?["round"] == .int(Int64(round)))
        }
    }

    @Test func aPasswordForAnHTTPEndpointIsRefusedUnlessAllowed() throws {
        let cluster = try EtcdTestStore.cluster()   // http://, no authentication
        let credentials = EtcdSecurity.Credentials(user: "root", password: "secret")
        #expect(throws: EtcdError.passwordOverPlainHTTP(endpoint: cluster.endpoints[0])) {
            try EtcdBackend(endpoints: cluster.endpoints, prefix: "p", security: EtcdSecurity(credentials: credentials))
        }
        // Allowed in as many words: the cluster has no authentication, and takes the requests.
        let prefix = EtcdTestStore.freshPrefix("plain")
        let backend = try EtcdBackend(endpoints: cluster.endpoints, prefix: prefix,
                                      security: EtcdSecurity(credentials: credentials, allowsPasswordOverPlainHTTP: true))
        var batch = WriteBatch()
        batch.put([7], forKey: [1], in: "t")
        try backend.apply(batch)
        #expect(try EtcdTestStore.backend(prefix: prefix).recordCount(in: "t") == 1)
    }
}

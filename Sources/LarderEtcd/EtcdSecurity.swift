// EtcdSecurity: how an EtcdBackend proves the cluster is the right one and itself to the cluster:
// the certificate authority that signed the members' certificates (https:// endpoints), a client
// certificate for clusters that ask for one (`--client-cert-auth`), and a user name and password
// for clusters with authentication enabled. Files are read when the backend opens, each failure a
// typed EtcdError. A password is never sent over http:// unless the caller says so in as many words.

/// The TLS and authentication options of an ``EtcdBackend``.
///
/// ```swift
/// let security = EtcdSecurity(
///     trustedCertificateAuthorityFile: "/etc/etcd/ca.pem",
///     clientCertificate: .init(certificateFile: "/etc/larder/client.pem", keyFile: "/etc/larder/client-key.pem"),
///     credentials: .init(user: "larder", password: secret))
/// let backend = try EtcdBackend(endpoints: ["https://10.0.0.1:2379"], prefix: "music", security: security)
/// ```
///
/// `https://` endpoints are verified against `trustedCertificateAuthorityFile` (the system's trust
/// roots when it is nil), and the member's certificate must name the endpoint's host. With
/// `credentials`, the backend asks etcd for a token (`/v3/auth/authenticate`) and sends it with
/// every request, asking for a new one when etcd says it expired. Credentials with an `http://`
/// endpoint are refused (``EtcdError/passwordOverPlainHTTP(endpoint:)``) unless
/// `allowsPasswordOverPlainHTTP` is true: on a network anyone can read, that is handing the
/// password to them.
public struct EtcdSecurity: Sendable, Equatable {
    /// A client certificate and its private key, both PEM files, for mutual TLS.
    ///
    /// ```swift
    /// let certificate = EtcdSecurity.ClientCertificate(certificateFile: "client.pem", keyFile: "client-key.pem")
    /// ```
    public struct ClientCertificate: Sendable, Equatable {
        /// The PEM file of the client's certificate (it may hold intermediate certificates after it).
        public var certificateFile: String
        /// The PEM file of the certificate's private key (unencrypted).
        public var keyFile: String

        /// A client certificate from `certificateFile` with the private key in `keyFile`.
        ///
        /// ```swift
        /// let certificate = EtcdSecurity.ClientCertificate(certificateFile: "client.pem", keyFile: "client-key.pem")
        /// ```
        public init(certificateFile: String, keyFile: String) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }

    /// An etcd user name and its password (etcd's `auth enable`).
    ///
    /// ```swift
    /// let credentials = EtcdSecurity.Credentials(user: "larder", password: secret)
    /// ```
    public struct Credentials: Sendable, Equatable {
        /// The etcd user.
        public var user: String
        /// Its password.
        public var password: String

        /// The credentials of `user`.
        ///
        /// ```swift
        /// let credentials = EtcdSecurity.Credentials(user: "root", password: secret)
        /// ```
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    /// The PEM file of the certificate authorities trusted to sign the members' certificates;
    /// nil: the system's trust roots.
    public var trustedCertificateAuthorityFile: String?
    /// The certificate the backend shows when a member asks for one; nil: none.
    public var clientCertificate: ClientCertificate?
    /// The user the backend authenticates as; nil: none (a cluster without authentication).
    public var credentials: Credentials?
    /// Whether `credentials` may be sent to an `http://` endpoint, in clear. False unless set.
    public var allowsPasswordOverPlainHTTP: Bool

    /// No TLS options and no user: what a cluster on `http://` without authentication needs.
    ///
    /// ```swift
    /// let backend = try EtcdBackend(endpoints: ["http://127.0.0.1:2379"], prefix: "music", security: .none)
    /// ```
    public static let none = EtcdSecurity()

    /// Security options; every one is optional.
    ///
    /// ```swift
    /// let security = EtcdSecurity(trustedCertificateAuthorityFile: "/etc/etcd/ca.pem")
    /// ```
    public init(trustedCertificateAuthorityFile: String? = nil, clientCertificate: ClientCertificate? = nil,
                credentials: Credentials? = nil, allowsPasswordOverPlainHTTP: Bool = false) {
        self.trustedCertificateAuthorityFile = trustedCertificateAuthorityFile
        self.clientCertificate = clientCertificate
        self.credentials = credentials
        self.allowsPasswordOverPlainHTTP = allowsPasswordOverPlainHTTP
    }
}

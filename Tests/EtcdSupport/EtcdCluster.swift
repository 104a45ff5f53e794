// EtcdCluster: a real etcd cluster for tests, three members on loopback, with client and peer
// ports the kernel picks at run time (no fixed port that two runs could both want), data in a
// temporary directory (in memory, /dev/shm, where there is one). One cluster serves a test
// process (`EtcdCluster.shared`, started on first use); it is stopped and its directory removed
// when the process exits, and, should the process die without exiting (a crash, a kill -9), by a
// watchdog shell that outlives it. A test can kill -9 one member and start it again (fault tests).
// A cluster of its own may serve its clients over TLS (EtcdTestCertificates), ask them for a
// client certificate, and have authentication enabled: each member then listens on an https://
// port (its endpoint) and a plain http:// one on loopback that the harness alone uses (health
// checks, setting up users before authentication is on).

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A 3-member etcd cluster on loopback, for tests (Debian's `etcd-server`, `make deps`).
///
/// ```swift
/// let cluster = try EtcdCluster.shared.get()
/// let backend = try EtcdBackend(endpoints: cluster.endpoints, prefix: "test-\(UUID())")
/// ```
public final class EtcdCluster: @unchecked Sendable {
    // @unchecked: every mutable field is used under `lock`.

    /// The cluster of this test process, started on first use; its failure to start is kept, so
    /// each test that needs it reports it.
    public static let shared: Result<EtcdCluster, EtcdClusterError> = {
        do {
            let cluster = try EtcdCluster(memberCount: 3)
            clusterToStopAtExit = cluster
            atexit { clusterToStopAtExit?.stop() }
            return .success(cluster)
        } catch let error as EtcdClusterError {
            return .failure(error)
        } catch {
            return .failure(.cannotStart(reason: "\(error)"))
        }
    }()

    /// The directory holding every member's data, logs and process id.
    public let directory: String
    /// The members' client URLs (`http://127.0.0.1:PORT`, `https://` with certificates), in member order.
    public let endpoints: [String]
    /// The members' plain-HTTP client URLs (the same as `endpoints` without certificates).
    public var plainEndpoints: [String] { members.map(\.clientURL) }

    /// The members' peer URLs (HTTP, but not etcd's client API), in member order.
    public var peerEndpoints: [String] { members.map(\.peerURL) }

    /// A loopback port nothing listens on (the kernel's pick, released), for tests of an
    /// unreachable endpoint.
    public static func unusedLoopbackPort() throws -> Int {
        try freePorts(1)[0]
    }

    private let members: [Member]
    private let options: Options
    private var processes: [Process?]
    private var watchdog: Process?
    private var isStopped = false
    private let lock = NSLock()

    private struct Member {
        let name: String
        let clientPort: Int
        let peerPort: Int
        /// The https:// client port, with certificates.
        let secureClientPort: Int?
        var clientURL: String { "http://127.0.0.1:\(clientPort)" }
        var peerURL: String { "http://127.0.0.1:\(peerPort)" }
        var endpoint: String { secureClientPort.map { "https://127.0.0.1:\($0)" } ?? clientURL }
    }

    /// How the members of a cluster on https:// check their clients.
    public enum TLS: Sendable {
        /// The members show their certificate; clients show none.
        case serverOnly
        /// The members also ask every client for a certificate the cluster's authority signed
        /// (`--client-cert-auth`).
        case clientCertificatesRequired
    }

    /// The certificates of a cluster on https:// (in its directory, removed with it); nil for
    /// one on http://.
    public var certificates: EtcdTestCertificates? { options.certificates }

    /// How the members serve their clients.
    private struct Options {
        var certificates: EtcdTestCertificates?
        var requiresClientCertificates = false
        var authTokenTTL: Int?
    }

    /// Starts `memberCount` members and waits until each reports itself healthy; removes
    /// everything it made when they do not. Tries new ports when another process took one
    /// between the pick and the start.
    ///
    /// With `tls`, the members serve their clients on https:// with certificates made for the
    /// cluster in its directory (``certificates``), and ask them for one when it says so;
    /// `authTokenTTL` is etcd's `--auth-token-ttl` (seconds a token lives unused), for tests of
    /// authentication (``enableAuthentication(rootPassword:users:)``).
    ///
    /// ```swift
    /// let cluster = try EtcdCluster(memberCount: 3)
    /// defer { cluster.stop() }
    /// ```
    public init(memberCount: Int = 3, tls: TLS? = nil, authTokenTTL: Int? = nil, timeout: TimeInterval = 60) throws {
        var options = Options(requiresClientCertificates: tls == .clientCertificatesRequired, authTokenTTL: authTokenTTL)
        let portsPerMember = tls == nil ? 2 : 3
        guard let executable = Self.etcdExecutable() else { throw EtcdClusterError.etcdNotInstalled }
        var lastError: EtcdClusterError = .cannotStart(reason: "no attempt made")
        for _ in 0 ..< 3 {
            let directory = Self.temporaryRoot() + "larder-etcd-\(UUID().uuidString)"
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                options.certificates = try tls.map { _ in try EtcdTestCertificates(in: directory + "/certificates") }
                let ports = try Self.freePorts(memberCount * portsPerMember)
                let members = (0 ..< memberCount).map {
                    Member(name: "m\($0)", clientPort: ports[portsPerMember * $0], peerPort: ports[portsPerMember * $0 + 1],
                           secureClientPort: portsPerMember == 3 ? ports[portsPerMember * $0 + 2] : nil)
                }
                let started = try Self.start(members, options: options, executable: executable, in: directory, timeout: timeout)
                self.directory = directory
                self.members = members
                self.options = options
                self.endpoints = members.map(\.endpoint)
                self.processes = started.processes
                self.watchdog = started.watchdog
                return
            } catch let error as EtcdClusterError {
                lastError = error
                try? FileManager.default.removeItem(atPath: directory)
            }
        }
        throw lastError
    }

    deinit { stop() }

    /// The number of members.
    public var memberCount: Int { members.count }

    /// Kills member `index` with SIGKILL (no shutdown at all) and waits until it is gone.
    ///
    /// ```swift
    /// cluster.kill(member: 1)
    /// ```
    public func kill(member index: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard let process = processes[index] else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        processes[index] = nil
        try? FileManager.default.removeItem(atPath: pidFile(index))
    }

    /// Freezes member `index` with SIGSTOP: its process and its connections stay open, but it
    /// answers nothing, as a hung machine; ``thaw(member:)`` lets it go on.
    ///
    /// ```swift
    /// cluster.freeze(member: 0)
    /// defer { cluster.thaw(member: 0) }
    /// ```
    public func freeze(member index: Int) {
        sendSignal(SIGSTOP, toMember: index)
    }

    /// Lets member `index`, frozen by ``freeze(member:)``, go on (SIGCONT).
    ///
    /// ```swift
    /// cluster.thaw(member: 0)
    /// ```
    public func thaw(member index: Int) {
        sendSignal(SIGCONT, toMember: index)
    }

    private func sendSignal(_ signal: Int32, toMember index: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard let process = processes[index] else { return }
        Glibc.kill(process.processIdentifier, signal)
    }

    /// Starts member `index` again on its data directory and waits until it is healthy.
    ///
    /// ```swift
    /// try cluster.restart(member: 1)
    /// ```
    public func restart(member index: Int, timeout: TimeInterval = 60) throws {
        try restart(members: [index], timeout: timeout)
    }

    /// Starts the killed members among `indexes` again, all at once (a member is healthy only
    /// once a quorum is up), and waits until each is healthy.
    ///
    /// ```swift
    /// for member in 0 ..< 3 { cluster.kill(member: member) }
    /// try cluster.restart(members: [0, 1, 2])
    /// ```
    public func restart(members indexes: [Int], timeout: TimeInterval = 60) throws {
        guard let executable = Self.etcdExecutable() else { throw EtcdClusterError.etcdNotInstalled }
        lock.lock()
        defer { lock.unlock() }
        guard !isStopped else { return }
        var restarted: [(Member, Process)] = []
        for index in indexes where processes[index] == nil {
            let process = try Self.launch(members[index], of: members, options: options, executable: executable, in: directory)
            processes[index] = process
            restarted.append((members[index], process))
        }
        try Self.waitUntilHealthy(restarted.map(\.0), processes: restarted.map(\.1), in: directory, timeout: timeout)
    }

    /// Whether member `index` answers its health check with `true`.
    public func isHealthy(member index: Int) -> Bool {
        Self.healthy(members[index].clientPort)
    }

    /// Kills every member and removes the directory. Done at exit for the shared cluster.
    ///
    /// ```swift
    /// cluster.stop()
    /// ```
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !isStopped else { return }
        isStopped = true
        for case let process? in processes {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        processes = processes.map { _ in nil }
        try? FileManager.default.removeItem(atPath: directory)
        if let watchdog {
            Glibc.kill(watchdog.processIdentifier, SIGKILL)
            watchdog.waitUntilExit()
        }
        watchdog = nil
    }

    /// A user whose role may read and write only the keys that begin with `prefix`.
    public struct PrefixUser: Sendable {
        public var name: String
        public var password: String
        public var prefix: String

        public init(name: String, password: String, prefix: String) {
            self.name = name
            self.password = password
            self.prefix = prefix
        }
    }

    /// Adds the user `root` (etcd's root role) with `rootPassword` and each of `users` (a role of
    /// its own, read and write on its prefix), then turns authentication on, through member 0's
    /// plain-HTTP port (the JSON gateway's `/v3/auth/...`).
    ///
    /// ```swift
    /// try cluster.enableAuthentication(rootPassword: "secret")
    /// ```
    public func enableAuthentication(rootPassword: String, users: [PrefixUser] = []) throws {
        func json(_ text: String) -> String { String(decoding: (try? JSONEncoder().encode(text)) ?? Data(), as: UTF8.self) }
        func base64(_ bytes: [UInt8]) -> String { json(Data(bytes).base64EncodedString()) }
        var steps = [("role/add", #"{"name":"root"}"#),
                     ("user/add", #"{"name":"root","password":\#(json(rootPassword))}"#),
                     ("user/grant", #"{"user":"root","role":"root"}"#)]
        for user in users {
            // Every key that begins with the prefix: up to the prefix with its last byte plus one.
            var end = Array(user.prefix.utf8)
            while let last = end.popLast() {
                if last < 0xFF { end.append(last + 1); break }
            }
            steps += [("role/add", #"{"name":\#(json(user.name))}"#),
                      ("role/grant", #"{"name":\#(json(user.name)),"perm":{"permType":"READWRITE","key":\#(base64(Array(user.prefix.utf8))),"range_end":\#(base64(end))}}"#),
                      ("user/add", #"{"name":\#(json(user.name)),"password":\#(json(user.password))}"#),
                      ("user/grant", #"{"user":\#(json(user.name)),"role":\#(json(user.name))}"#)]
        }
        steps.append(("enable", "{}"))
        for (path, body) in steps {
            let request = "POST /v3/auth/\(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
            guard let reply = Self.exchange(request, port: members[0].clientPort), reply.hasPrefix("HTTP/1.0 200") else {
                throw EtcdClusterError.cannotStart(reason: "/v3/auth/\(path) failed")
            }
        }
    }

    // MARK: Starting

    private func pidFile(_ index: Int) -> String { Self.pidFile(of: members[index], in: directory) }

    private static func pidFile(of member: Member, in directory: String) -> String {
        "\(directory)/\(member.name).pid"
    }

    /// Where the cluster's directory goes: /dev/shm when it is there (memory: etcd's fsync of
    /// every commit on three members costs nothing, which is the tests' time, not their truth),
    /// else the system's temporary directory.
    private static func temporaryRoot() -> String {
        let memory = "/dev/shm/"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: memory, isDirectory: &isDirectory), isDirectory.boolValue,
           FileManager.default.isWritableFile(atPath: memory) {
            return memory
        }
        return NSTemporaryDirectory()
    }

    private static func etcdExecutable() -> String? {
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/local/bin")
            .split(separator: ":").map { "\($0)/etcd" } + ["/usr/bin/etcd"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func start(_ members: [Member], options: Options, executable: String, in directory: String,
                              timeout: TimeInterval) throws -> (processes: [Process?], watchdog: Process) {
        let watchdog = try startWatchdog(for: directory)
        var processes: [Process] = []
        do {
            for member in members {
                processes.append(try launch(member, of: members, options: options, executable: executable, in: directory))
            }
            try waitUntilHealthy(members, processes: processes, in: directory, timeout: timeout)
            return (processes, watchdog)
        } catch {
            for process in processes {
                Glibc.kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            Glibc.kill(watchdog.processIdentifier, SIGKILL)
            watchdog.waitUntilExit()
            throw error
        }
    }

    /// A shell that waits for this process to end, then kills the members whose process ids
    /// are in the directory and removes it: the cleanup of a test process that crashed.
    private static func startWatchdog(for directory: String) throws -> Process {
        // A killed test process stays a zombie until `swift test` reaps it, and kill -0 still
        // finds a zombie: its state in /proc tells. The shell holds none of the test process's
        // pipes, or `swift test` would wait for them to close before reaping it.
        let script = """
            while kill -0 "$1" 2>/dev/null && ! grep -q '^State:[[:space:]]*Z' /proc/"$1"/status 2>/dev/null; do sleep 1; done
            for f in "$2"/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
            rm -rf "$2"
            """
        return try runSilently("/bin/sh", ["-c", script, "watchdog", String(getpid()), directory], for: "the watchdog")
    }

    /// Starts `executable` with `arguments`, its standard streams on /dev/null.
    private static func runSilently(_ executable: String, _ arguments: [String], for purpose: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw EtcdClusterError.cannotStart(reason: "cannot run \(executable) for \(purpose): \(error)")
        }
        return process
    }

    private static func launch(_ member: Member, of members: [Member], options: Options, executable: String,
                               in directory: String) throws -> Process {
        let cluster = members.map { "\($0.name)=\($0.peerURL)" }.joined(separator: ",")
        var security: [String] = []
        if let certificates = options.certificates {
            security += ["--cert-file", certificates.memberCertificate, "--key-file", certificates.memberKey]
            if options.requiresClientCertificates {
                security += ["--trusted-ca-file", certificates.authority, "--client-cert-auth"]
            }
        }
        if let ttl = options.authTokenTTL { security += ["--auth-token-ttl", String(ttl)] }
        let listen = member.secureClientPort == nil ? member.clientURL : "\(member.endpoint),\(member.clientURL)"
        let process = try runSilently(executable, security + [
            "--name", member.name,
            "--data-dir", "\(directory)/\(member.name)",
            "--listen-client-urls", listen, "--advertise-client-urls", member.endpoint,
            "--listen-peer-urls", member.peerURL, "--initial-advertise-peer-urls", member.peerURL,
            "--initial-cluster", cluster, "--initial-cluster-state", "new",
            "--initial-cluster-token", (directory as NSString).lastPathComponent,
            "--logger", "zap", "--log-level", "warn",
            "--log-outputs", "\(directory)/\(member.name).log",
        ], for: "member \(member.name)")
        try? String(process.processIdentifier).write(toFile: pidFile(of: member, in: directory),
                                                      atomically: true, encoding: .utf8)
        return process
    }

    private static func waitUntilHealthy(_ members: [Member], processes: [Process], in directory: String,
                                         timeout: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var waiting = Array(members.indices)
        while !waiting.isEmpty {
            for position in waiting where !processes[position].isRunning {
                let log = (try? String(contentsOfFile: "\(directory)/\(members[position].name).log", encoding: .utf8)) ?? ""
                throw EtcdClusterError.cannotStart(reason: "member \(members[position].name) exited: \(log.suffix(600))")
            }
            waiting.removeAll { healthy(members[$0].clientPort) }
            if waiting.isEmpty { return }
            if Date() > deadline {
                throw EtcdClusterError.cannotStart(reason: "members \(waiting.map { members[$0].name }) not healthy after \(Int(timeout)) s")
            }
            usleep(100_000)
        }
    }

    // MARK: Sockets

    /// `count` distinct ports the kernel gives to sockets bound to port 0, all held until every
    /// one is picked, then released for etcd to take.
    private static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var ports: [Int] = []
        for _ in 0 ..< count {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { throw EtcdClusterError.cannotStart(reason: "socket() failed: errno \(errno)") }
            sockets.append(socket)
            var address = loopback(port: 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
            }
            guard bound == 0, named == 0 else { throw EtcdClusterError.cannotStart(reason: "cannot bind a loopback port: errno \(errno)") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Whether `GET /health` on the member's client port answers `"health":"true"` within a second.
    private static func healthy(_ port: Int) -> Bool {
        let request = "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
        return exchange(request, port: port)?.contains("\"health\":\"true\"") ?? false
    }

    /// The reply (headers and body) to `request` sent on the loopback port, or nil when it
    /// cannot be sent.
    private static func exchange(_ text: String, port: Int) -> String? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: UInt16(port))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let request = Array(text.utf8)
        guard send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while reply.count < 16_384 {
            let read = recv(socket, &chunk, chunk.count, 0)
            if read <= 0 { break }
            reply.append(contentsOf: chunk[0 ..< read])
        }
        return String(decoding: reply, as: UTF8.self)
    }
}

/// The cluster of the test process, for the exit handler (a C function pointer captures nothing).
nonisolated(unsafe) private var clusterToStopAtExit: EtcdCluster?

/// Why a test cluster did not start.
public enum EtcdClusterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No `etcd` executable on the PATH: `make deps` installs Debian's etcd-server.
    case etcdNotInstalled
    /// A member did not start or did not become healthy.
    case cannotStart(reason: String)

    public var description: String {
        switch self {
        case .etcdNotInstalled: return "etcd is not installed (make deps installs etcd-server)"
        case let .cannotStart(reason): return "the test etcd cluster did not start: \(reason)"
        }
    }
}

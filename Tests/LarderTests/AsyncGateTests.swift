// AsyncGate: places are taken first come, first served; a waiter gets the place its turn brings
// and no other; a task cancelled while it waits, or before it asks, throws and holds nothing.

import Foundation
import Synchronization
import Testing
@testable import Larder

@Suite struct AsyncGateTests {
    @Test func waitersGetPlacesInTheOrderTheyAsked() async throws {
        let gate = AsyncGate(places: 2)
        try await gate.enter()
        try await gate.enter()
        #expect(gate.counts.free == 0)
        let order = Shared<[Int]>([])
        var waiters: [Task<Void, any Error>] = []
        for number in 1 ... 4 {
            waiters.append(Task {
                try await gate.enter()
                order.update { $0.append(number) }
            })
            while gate.counts.waiting < number { await Task.yield() }
        }
        for _ in 1 ... 4 {
            let before = order.current.count
            gate.leave()
            while order.current.count == before { await Task.yield() }
        }
        for waiter in waiters { try await waiter.value }
        #expect(order.current == [1, 2, 3, 4])
        #expect(gate.counts.free == 0 && gate.counts.waiting == 0)
        gate.leave()
        gate.leave()
        #expect(gate.counts.free == 2)
    }

    @Test func aCancelledWaiterHoldsNothing() async throws {
        let gate = AsyncGate(places: 1)
        try await gate.enter()
        let waiter = Task { try await gate.enter() }
        while gate.counts.waiting < 1 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await gate.enter()
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(gate.counts.free == 0 && gate.counts.waiting == 0)
        gate.leave()
        #expect(gate.counts.free == 1)
        try await gate.enter()
        #expect(gate.counts.free == 0)
    }

    /// Tasks entering and leaving at once while some waiters are cancelled: the place a leave
    /// hands over while its waiter is being cancelled is not lost, never more than the places
    /// are held, and every place is free at the end.
    @Test func placesSurviveRacingLeavesAndCancellations() async throws {
        let gate = AsyncGate(places: 2)
        let holding = Atomic(0)
        let mostHeld = Atomic(0)
        let entered = Atomic(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            var cancellable: [Task<Void, Never>] = []
            for task in 0 ..< 48 {
                let work: @Sendable () async -> Void = {
                    for _ in 0 ..< 150 {
                        do { try await gate.enter() } catch { return }
                        let now = holding.add(1, ordering: .sequentiallyConsistent).newValue
                        mostHeld.max(now, ordering: .sequentiallyConsistent)
                        entered.add(1, ordering: .relaxed)
                        await Task.yield()
                        holding.subtract(1, ordering: .sequentiallyConsistent)
                        gate.leave()
                    }
                }
                if task % 4 == 0 {
                    cancellable.append(Task { await work() })
                } else {
                    group.addTask { await work() }
                }
            }
            for (number, task) in cancellable.enumerated() {
                for _ in 0 ..< number { await Task.yield() }
                task.cancel()
            }
            try await group.waitForAll()
            for task in cancellable { await task.value }
        }
        #expect(mostHeld.load(ordering: .relaxed) <= 2)
        #expect(entered.load(ordering: .relaxed) >= 36 * 150)
        #expect(gate.counts.free == 2 && gate.counts.waiting == 0)
    }
}

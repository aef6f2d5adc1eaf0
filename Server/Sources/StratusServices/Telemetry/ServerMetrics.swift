import CoreMetrics
import Prometheus
import StratusStore
import Synchronization

/// What this node counts and measures, served in Prometheus's text format at `GET /metrics`.
///
/// Every series carries the node's name (`node`), so that the nodes behind one load balancer can be told apart
/// and summed. Requests are labelled with their route's pattern (`/database/1/{container}/...`), never the path
/// itself, so that the number of series stays bounded.
package final class ServerMetrics: Sendable {
    package let node: String
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    package init(node: String) {
        self.node = node
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000].map { .milliseconds($0) }
        self.factory = factory
    }

    /// An answered request, with the status it got.
    package func requestAnswered(method: String, route: String, status: Int, duration: Duration) {
        let (counter, timer) = requestSeries.withLock { series in
            let key = RequestKey(method: method, route: route, status: status)
            if let found = series[key] { return found }
            let made = (
                Counter(
                    label: "stratus_http_requests_total", dimensions: [("node", node), ("method", method), ("route", route), ("status", "\(status)")],
                    factory: factory
                ),
                Timer(label: "stratus_http_request_duration_seconds", dimensions: [("node", node), ("method", method), ("route", route)], factory: factory)
            )
            series[key] = made
            return made
        }
        counter.increment()
        timer.record(duration: duration)
    }

    /// The series of one kind of answered request, made once rather than looked up in the registry per request.
    private struct RequestKey: Hashable {
        package var method: String
        package var route: String
        package var status: Int
    }

    private let requestSeries = Mutex<[RequestKey: (CoreMetrics.Counter, CoreMetrics.Timer)]>([:])

    /// Notifications stored for delivery by this node's subscription matching.
    package func notificationsQueued(_ count: Int) {
        guard count > 0 else { return }
        Counter(label: "stratus_notifications_queued_total", dimensions: [("node", node)], factory: factory).increment(by: count)
    }

    /// Notifications handed to clients by this node: `courier` (long poll), `stream` (server-sent events) or `apns`.
    package func notificationsDelivered(_ count: Int, via channel: String) {
        guard count > 0 else { return }
        Counter(label: "stratus_notifications_delivered_total", dimensions: [("node", node), ("channel", channel)], factory: factory)
            .increment(by: count)
    }

    /// The text exposition, with the store's gauges and the notification listeners (long polls and event streams
    /// held open on this node) read now.
    package func exposition(store: any Store, notificationListeners: Int) -> String {
        let statistics = store.statistics()
        let node = [("node", node)]
        Gauge(label: "stratus_notification_listeners", dimensions: node, factory: factory).record(notificationListeners)
        Gauge(label: "stratus_database_connections_in_use", dimensions: node, factory: factory).record(statistics.connectionsInUse)
        Gauge(label: "stratus_database_connections_awaited", dimensions: node, factory: factory).record(statistics.connectionsAwaited)
        Gauge(label: "stratus_database_connections_limit", dimensions: node, factory: factory).record(statistics.connectionLimit)
        if let lag = statistics.eventLagMilliseconds {
            Gauge(label: "stratus_store_event_lag_seconds", dimensions: node, factory: factory).record(Double(lag) / 1000)
        }
        return registry.emitToString()
    }
}

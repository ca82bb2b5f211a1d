package graphmem.neo4j;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.server.CommunityBootstrapper;
import org.neo4j.server.NeoBootstrapper;

/**
 * Starts Neo4j Community with Neo4j Browser in this JVM, on 127.0.0.1 only.
 *
 * <p>graphmem's tests and {@code make neo4j} run it through {@code tools/neo4j/run}. It prints
 * the Bolt URI and the Browser's URL each on a line of its own, then {@code ready}, and runs
 * until SIGTERM or Ctrl-C (the bootstrapper's shutdown hook stops the server cleanly). With {@code
 * --exit-on-eof} it also stops when its standard input closes, so a test run that dies, however
 * it dies, takes its Neo4j with it.
 *
 * <p>Options: {@code --home DIR} (required; data and logs go there), {@code --password PW}
 * (turns authentication on for user neo4j; without it authentication is off), {@code
 * --bolt-port N} and {@code --http-port N} (default: free ports), {@code --pagecache SIZE}, and
 * {@code --conf KEY=VALUE} (repeatable) for any other Neo4j setting.
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] args) throws Exception {
        List<String> extra = new ArrayList<>();
        Map<String, String> options = parse(args, extra);
        Path home = Path.of(required(options, "home")).toAbsolutePath();
        Files.createDirectories(home.resolve("conf"));
        Files.createDirectories(home.resolve("logs"));
        int bolt = port(options.get("bolt-port"));
        int http = port(options.get("http-port"));
        String password = options.get("password");

        Map<String, String> config = new HashMap<>();
        config.put("server.default_listen_address", "127.0.0.1");
        config.put("server.default_advertised_address", "127.0.0.1");
        config.put("server.bolt.listen_address", "127.0.0.1:" + bolt);
        config.put("server.bolt.advertised_address", "127.0.0.1:" + bolt);
        config.put("server.bolt.tls_level", "DISABLED");
        config.put("server.http.enabled", "true");
        config.put("server.http.listen_address", "127.0.0.1:" + http);
        config.put("server.http.advertised_address", "127.0.0.1:" + http);
        config.put("server.https.enabled", "false");
        // Nothing announces itself or calls out: no usage reports, and the Browser it
        // serves sends no product analytics (5.26 declares no
        // browser.allow_outgoing_connections; strict validation refuses it).
        config.put("dbms.usage_report.enabled", "false");
        config.put("client.allow_telemetry", "false");
        config.put("dbms.security.auth_enabled", password == null ? "false" : "true");
        config.put("server.memory.pagecache.size", options.getOrDefault("pagecache", "512m"));
        config.put("db.tx_log.rotation.retention_policy", "1 files");
        config.put("server.logs.gc.enabled", "false");

        for (String setting : extra) {
            int equals = setting.indexOf('=');
            if (equals <= 0) {
                System.err.println("--conf takes KEY=VALUE, not " + setting);
                System.exit(2);
            }
            config.put(setting.substring(0, equals).trim(), setting.substring(equals + 1).trim());
        }

        NeoBootstrapper server = new CommunityBootstrapper();
        int code = server.start(home, config);
        if (code != NeoBootstrapper.OK) {
            System.err.println("Neo4j did not start (exit code " + code + "); see " + home.resolve("logs"));
            System.exit(code);
        }
        if (password != null) {
            try {
                setPassword(server, password);
            } catch (RuntimeException e) {
                // A restart on the same data keeps the password it already has.
                if (!String.valueOf(e.getMessage()).contains("cannot be the same")) {
                    System.err.println("could not set the password of user neo4j: " + e.getMessage());
                    System.exit(1);
                }
            }
        }
        System.out.println("bolt://127.0.0.1:" + bolt);
        System.out.println("http://127.0.0.1:" + http + "/browser/");
        System.out.println("ready");
        System.out.flush();
        if (options.containsKey("exit-on-eof")) {
            InputStream in = System.in;
            while (in.read() != -1) {
                // Whatever the parent writes is ignored; only the end of input matters.
            }
            System.exit(0);
        }
        // SIGTERM and Ctrl-C run the shutdown hook Neo4j's bootstrapper installed,
        // which stops the server cleanly; until then there is nothing to do here.
        new CountDownLatch(1).await();
    }

    /** The first password of user neo4j, with no change required, set through the system database. */
    private static void setPassword(NeoBootstrapper server, String password) {
        GraphDatabaseService system = server.getDatabaseManagementService().database("system");
        try (Transaction tx = system.beginTx()) {
            tx.execute(
                    "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                    Map.of("password", password));
            tx.commit();
        }
    }

    private static int port(String given) throws IOException {
        if (given != null) {
            return Integer.parseInt(given);
        }
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            System.err.println("missing --" + name);
            System.exit(2);
        }
        return value;
    }

    private static Map<String, String> parse(String[] args, List<String> extra) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                System.err.println("unexpected argument: " + args[i]);
                System.exit(2);
            }
            String name = args[i].substring(2);
            if (name.equals("exit-on-eof")) {
                options.put(name, "true");
            } else if (name.equals("conf") && i + 1 < args.length) {
                extra.add(args[++i]);
            } else if (i + 1 < args.length) {
                options.put(name, args[++i]);
            } else {
                System.err.println("--" + name + " needs a value");
                System.exit(2);
            }
        }
        return options;
    }
}

package dev.helmet.spark;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * The Spark master and configuration a run asks for: {@code --master} and every {@code
 * --engine-conf spark.KEY=VALUE} (engine options {@code master} and {@code conf.spark.KEY}), on top
 * of what Spark reads itself ({@code spark.*} system properties, which spark-submit sets).
 *
 * <p>On a cluster the executors need Helmet's classes. spark-submit ships its application jar; when
 * the launcher runs the driver instead ({@code ./helmet ... --engine spark --master spark://...}),
 * nothing would, so unless {@code spark.jars} is set the jars this driver loaded Helmet from
 * (helmet.jar and helmet-spark.jar) are shipped, as spark-submit ships its own. A {@code
 * spark.jars} of the user's replaces them (it must then list Helmet's jars too).
 */
record SparkSettings(String master, Map<String, String> conf) {
  /** Prefix of the engine options that carry Spark configuration. */
  static final String CONF = "conf.";

  /** Spark's loggers, held strongly (java.util.logging keeps loggers weakly and would forget the level). */
  static final List<java.util.logging.Logger> QUIET = new java.util.ArrayList<>();

  static {
    // Spark logs through SLF4J to java.util.logging here: it speaks when something is wrong, unless
    // the user's logging configuration names its own levels.
    for (String name : new String[] {"org.apache.spark", "org.apache.hadoop", "org.sparkproject", "io.netty"}) {
      java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
      if (l.getLevel() == null) {
        l.setLevel(java.util.logging.Level.WARNING);
      }
      QUIET.add(l);
    }
    // Hadoop's pure-Java code paths serve Helmet (it reads no HDFS); its notice says nothing to do.
    java.util.logging.Logger hadoop = java.util.logging.Logger.getLogger("org.apache.hadoop.util.NativeCodeLoader");
    hadoop.setLevel(java.util.logging.Level.SEVERE);
    QUIET.add(hadoop);
  }

  SparkSettings {
    conf = Map.copyOf(conf);
  }

  /**
   * The settings in an engine's {@code options}: {@code master}, {@code conf.spark.*}, and the
   * engine's own {@code others}; anything else is refused, naming the engine's options.
   */
  static SparkSettings of(Map<String, String> options, Set<String> others, String what) {
    Map<String, String> conf = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : options.entrySet()) {
      String k = e.getKey();
      if (k.startsWith(CONF)) {
        String key = k.substring(CONF.length());
        String given = key + "=" + e.getValue();
        if (!key.startsWith("spark.") || key.length() == "spark.".length()) {
          throw new IllegalArgumentException("--engine-conf takes Spark settings, spark.KEY=VALUE. Provided: " + given);
        }
        if (e.getValue() == null || e.getValue().isBlank()) {
          throw new IllegalArgumentException("--engine-conf " + key + " needs a value (spark.KEY=VALUE). Provided: "
              + given);
        }
        if (key.equals("spark.master")) {
          throw new IllegalArgumentException("--engine-conf spark.master: give the master with --master");
        }
        conf.put(key, e.getValue());
      } else if (!k.equals("master") && !others.contains(k)) {
        List<String> names = new ArrayList<>(List.of("master"));
        names.addAll(others);
        throw new IllegalArgumentException(what + " has options " + String.join(", ", names)
            + " and conf.spark.* (--engine-conf). Provided: " + k);
      }
    }
    return new SparkSettings(options.get("master"), conf);
  }

  /** The configuration of a new context named {@code name}. */
  SparkConf sparkConf(String name) {
    SparkConf c = new SparkConf().setAppName(name);
    conf.forEach(c::set);
    if (master != null) {
      c.setMaster(master);
    } else {
      c.setIfMissing("spark.master", "local[*]");
    }
    c.setIfMissing("spark.ui.enabled", "false");
    if (local(c.get("spark.master"))) {
      // One process: the driver listens on loopback only (and Spark stops warning about the host name).
      c.setIfMissing("spark.driver.host", "127.0.0.1");
      c.setIfMissing("spark.driver.bindAddress", "127.0.0.1");
    } else if (!c.contains("spark.jars")) {
      List<Path> sources = java.util.Arrays.asList(codeSource(SparkEngine.class),
          codeSource(dev.helmet.protocols.simulation.Engine.class), codeSource(dev.helmet.core.data.Dataset.class));
      List<String> jars = jarFiles(sources);
      if (!jars.isEmpty()) {
        c.set("spark.jars", String.join(",", jars));
      }
      if (!c.contains("spark.executor.extraClassPath")) {
        for (Path p : sources) {
          if (p != null && Files.isDirectory(p)) {
            java.util.logging.Logger.getLogger(SparkSettings.class.getName()).warning("Helmet's classes in " + p
                + " are a folder, which is not shipped to the executors: run from the jars (the launcher, "
                + "spark-submit), or put the folder on spark.executor.extraClassPath");
          }
        }
      }
    }
    return c;
  }

  /** Whether {@code master} runs the executors in this JVM: local, local[N], local[N,F] (not local-cluster). */
  static boolean local(String master) {
    return master.equals("local") || master.startsWith("local[");
  }

  /**
   * The process's Spark context, made from these settings if there is none yet. It stays up for
   * later runs (an experiment runs many) and Spark stops it when the JVM exits.
   */
  JavaSparkContext context(String name) {
    return JavaSparkContext.fromSparkContext(SparkContext.getOrCreate(sparkConf(name)));
  }

  /** The distinct regular {@code .jar} files among {@code sources} (class folders are left out). */
  static List<String> jarFiles(List<Path> sources) {
    Set<String> out = new LinkedHashSet<>();
    for (Path p : sources) {
      if (p != null && Files.isRegularFile(p) && p.getFileName().toString().endsWith(".jar")) {
        out.add(p.toAbsolutePath().normalize().toString());
      }
    }
    return List.copyOf(out);
  }

  private static Path codeSource(Class<?> c) {
    CodeSource s = c.getProtectionDomain().getCodeSource();
    if (s == null || s.getLocation() == null) {
      return null;
    }
    try {
      return Path.of(s.getLocation().toURI());
    } catch (URISyntaxException | IllegalArgumentException e) {
      return null;
    }
  }
}

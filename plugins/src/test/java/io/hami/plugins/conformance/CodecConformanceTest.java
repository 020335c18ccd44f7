package io.hami.plugins.conformance;

import static io.hami.plugins.conformance.Ledger.hami;
import static io.hami.plugins.conformance.Ledger.ours;

import io.hami.model.Decoded;
import io.hami.model.device.NodeDeviceColon;
import io.hami.model.device.NodeDeviceJson;
import io.hami.model.lock.NodeLock;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.plugins.conformance.HamiRecords.Record;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import tools.jackson.databind.JsonNode;

/**
 * Replays HAMi v2.10's recorded calls of its annotation codecs ({@code pkg/device}) and node lock
 * helpers ({@code pkg/util/nodelock}) through our codecs: decoded values must be equal, encoded
 * strings equal byte for byte, and an error in HAMi an error in ours.
 *
 * <p>{@code ParseNodeLock} agrees everywhere, errors included. What differs on purpose is what the
 * node lock plugin does with a value that does not parse (ours replaces it as stale, HAMi keeps the
 * node locked); that lies outside these functions and is tested with the plugin.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class CodecConformanceTest {

  private final Ledger ledger =
      new Ledger(
          new Ledger.Deliberate(
              "nodelock.GeneratePodNamespaceName",
              "a nil pod: the framework never hands a plugin a null pod, so there is no key to make",
              in -> in.path("nil").asBoolean()),
          new Ledger.Deliberate(
              "nodelock.GenerateNodeLockKeyByPod",
              "a pod with neither namespace nor name (the API server stores none): ours writes the"
                  + " time-only lock form, which both readers take as the same holderless lock",
              in -> in.path("ns").asString().isEmpty() && in.path("name").asString().isEmpty()));

  @AfterAll
  void everyExceptionHit() {
    ledger.assertEveryExceptionHit();
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.DecodeContainerDevices")
  void decodeContainerDevices(Record r) {
    ledger.check(
        r,
        hami(r.out().path("err"), GoValues.containerDevices(r.out().path("cd"))),
        ours(PodDevicesCodec.decodeContainer(r.in().asString())));
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.EncodeContainerDevices")
  void encodeContainerDevices(Record r) {
    ledger.check(
        r, r.out().asString(), PodDevicesCodec.encodeContainer(GoValues.containerDevices(r.in())));
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.EncodeContainerDeviceType")
  void encodeContainerDeviceType(Record r) {
    ledger.check(
        r,
        r.out().asString(),
        PodDevicesCodec.encodeContainerDeviceType(
            GoValues.containerDevices(r.in().path("cd")), r.in().path("t").asString()));
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.EncodePodSingleDevice")
  void encodePodSingleDevice(Record r) {
    ledger.check(r, r.out().asString(), PodDevicesCodec.encode(GoValues.podSingle(r.in())));
  }

  /** Each vendor of the check list writes its devices under its annotation key. */
  @ParameterizedTest(name = "{0}")
  @HamiSource("device.EncodePodDevices")
  void encodePodDevices(Record r) {
    Map<String, String> checklist = GoValues.strings(r.in().path("checklist"));
    Map<String, String> ours = new LinkedHashMap<>();
    GoValues.podDevices(r.in().path("pd"))
        .forEach(
            (vendor, pd) -> {
              String key = checklist.get(vendor);
              if (key != null) {
                ours.put(key, PodDevicesCodec.encode(pd));
              }
            });
    ledger.check(r, GoValues.strings(r.out()), ours);
  }

  /** Each vendor of the check list whose annotation the pod carries is decoded. */
  @ParameterizedTest(name = "{0}")
  @HamiSource("device.DecodePodDevices")
  void decodePodDevices(Record r) {
    Map<String, String> annos = GoValues.strings(r.in().path("annos"));
    Map<String, PodDevices> decoded = new LinkedHashMap<>();
    Object ours = decoded;
    for (Map.Entry<String, String> e : GoValues.strings(r.in().path("checklist")).entrySet()) {
      String value = annos.get(e.getValue());
      if (value == null) {
        continue;
      }
      Decoded<PodDevices> d = PodDevicesCodec.decode(value);
      if (!d.isOk()) {
        ours = Ledger.ERROR;
        break;
      }
      decoded.put(e.getKey(), d.orElse(PodDevices.empty()));
    }
    ledger.check(r, hami(r.out().path("err"), GoValues.podDevices(r.out().path("pd"))), ours);
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.EncodeNodeDevices")
  void encodeNodeDevices(Record r) {
    ledger.check(r, r.out().asString(), NodeDeviceColon.encode(GoValues.nodeDevices(r.in())));
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.DecodeNodeDevices")
  void decodeNodeDevices(Record r) {
    ledger.check(
        r,
        hami(r.out().path("err"), GoValues.nodeDevices(r.out().path("devices"))),
        ours(NodeDeviceColon.decode(r.in().asString())));
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.MarshalNodeDevices")
  void marshalNodeDevices(Record r) {
    ledger.check(r, r.out().asString(), NodeDeviceJson.encode(GoValues.nodeDevices(r.in())));
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.UnMarshalNodeDevices")
  void unmarshalNodeDevices(Record r) {
    ledger.check(
        r,
        hami(r.out().path("err"), GoValues.nodeDevices(r.out().path("devices"))),
        ours(NodeDeviceJson.decode(r.in().asString())));
  }

  /** The key is the time HAMi took, then namespace and name: ours must write the same bytes. */
  @ParameterizedTest(name = "{0}")
  @HamiSource("nodelock.GenerateNodeLockKeyByPod")
  void generateNodeLockKeyByPod(Record r) throws Exception {
    String out = r.out().asString();
    OffsetDateTime taken = NodeLock.parseTime(out.substring(0, out.indexOf(','))).orElseThrow();
    ledger.check(
        r,
        out,
        NodeLock.of(taken, r.in().path("ns").asString(), r.in().path("name").asString()).encode());
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("nodelock.GeneratePodNamespaceName")
  void generatePodNamespaceName(Record r) {
    JsonNode in = r.in();
    Object ours =
        in.path("nil").asBoolean()
            ? Ledger.ERROR
            : NodeLock.podKey(
                in.path("ns").asString(), in.path("name").asString(), in.path("sep").asString());
    ledger.check(r, r.out().asString(), ours);
  }

  /** A parsed lock is compared by instant, namespace and name. */
  @ParameterizedTest(name = "{0}")
  @HamiSource("nodelock.ParseNodeLock")
  void parseNodeLock(Record r) {
    JsonNode out = r.out();
    Object hami =
        hami(
            out.path("err"),
            List.of(
                out.path("unix").asLong(), out.path("ns").asString(), out.path("name").asString()));
    Object ours =
        ours(
            NodeLock.decode(r.in().asString())
                .map(l -> List.of(l.time().toEpochSecond(), l.namespace(), l.name())));
    ledger.check(r, hami, ours);
  }
}

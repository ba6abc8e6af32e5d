/** Common place names that are not the city of an IANA zone id. */
const ALIASES: Readonly<Record<string, string>> = {
  "san francisco": "America/Los_Angeles",
  "los angeles": "America/Los_Angeles",
  seattle: "America/Los_Angeles",
  "new york": "America/New_York",
  nyc: "America/New_York",
  boston: "America/New_York",
  washington: "America/New_York",
  beijing: "Asia/Shanghai",
  india: "Asia/Kolkata",
  delhi: "Asia/Kolkata",
  "new delhi": "Asia/Kolkata",
  mumbai: "Asia/Kolkata",
  bangalore: "Asia/Kolkata",
  japan: "Asia/Tokyo",
  uk: "Europe/London",
  england: "Europe/London",
  germany: "Europe/Berlin",
  france: "Europe/Paris",
  utc: "UTC",
};

let zoneByCity: Map<string, string> | undefined;

function cities(): Map<string, string> {
  if (zoneByCity === undefined) {
    zoneByCity = new Map();
    const supported =
      (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
    for (const zone of supported) {
      const city = zone.split("/").at(-1)?.replace(/_/g, " ").toLowerCase();
      if (city !== undefined && !zoneByCity.has(city)) zoneByCity.set(city, zone);
    }
  }
  return zoneByCity;
}

/**
 * The IANA zone of a place named in `text` ("what time is it in Tokyo?" -> `Asia/Tokyo`), from a
 * few aliases and the city part of every zone id the runtime knows. `undefined` when none is named.
 */
export function zoneForText(text: string): string | undefined {
  const explicit = /\b([A-Za-z]+\/[A-Za-z_]+(?:\/[A-Za-z_]+)?)\b/.exec(text);
  if (
    explicit?.[1] !== undefined &&
    cities().has(explicit[1].split("/").at(-1)?.replace(/_/g, " ").toLowerCase() ?? "")
  ) {
    return explicit[1];
  }
  const words = text
    .toLowerCase()
    .replace(/[^a-z\s]/g, " ")
    .split(/\s+/)
    .filter((w) => w !== "");
  for (let size = 3; size >= 1; size--) {
    for (let i = 0; i + size <= words.length; i++) {
      const phrase = words.slice(i, i + size).join(" ");
      const zone = ALIASES[phrase] ?? (phrase.length > 2 ? cities().get(phrase) : undefined);
      if (zone !== undefined) return zone;
    }
  }
  return undefined;
}

// Country names and ISO 3166-2 subdivisions, for the state check (validate.ts), the country and
// state prompts and shell completion: one table (iso-3166-data.ts, generated from iso-codes),
// loaded with import() the first time one of them needs it, never at start-up.

export interface Country {
  code: string;
  name: string;
  /** Other names people use (the common name: "South Korea"). */
  aliases: readonly string[];
}

export interface Subdivision {
  code: string;
  name: string;
}

export interface IsoTables {
  readonly source: string;
  readonly countries: readonly Country[];
  country(code: string): Country | undefined;
  subdivision(code: string): Subdivision | undefined;
  /** The country's subdivisions by code; empty for a country without any (AQ, VA, …). */
  subdivisionsOf(country: string): readonly Subdivision[];
  /**
   * What a person typed for a state, as its ISO 3166-2 code: `US-VA`, `us-va`, or the bare
   * subdivision `VA` / `va` when the country is known (`US`). Undefined when it names none.
   */
  resolveState(input: string, country?: string): string | undefined;
}

let tables: IsoTables | undefined;
let loading: Promise<IsoTables> | undefined;

/** Loads the tables once (a ~90 KB module); later calls get the same object. */
export function loadIsoTables(): Promise<IsoTables> {
  if (tables) return Promise.resolve(tables);
  loading ??= import('./iso-3166-data.js').then((data) => (tables = buildTables(data.SOURCE, data.COUNTRY_LINES, data.SUBDIVISION_LINES)));
  return loading;
}

/** The tables if loadIsoTables() has run, else undefined. */
export function isoTablesLoaded(): IsoTables | undefined {
  return tables;
}

export function buildTables(source: string, countryLines: string, subdivisionLines: string): IsoTables {
  const countries: Country[] = countryLines.split('\n').map((line) => {
    const [code, name, ...aliases] = line.split('|');
    return { code: code!, name: name!, aliases };
  });
  const byCountry = new Map<string, Country>(countries.map((c) => [c.code, c]));
  const bySub = new Map<string, Subdivision>();
  const perCountry = new Map<string, Subdivision[]>();
  for (const line of subdivisionLines.split('\n')) {
    const i = line.indexOf('|');
    const sub = { code: line.slice(0, i), name: line.slice(i + 1) };
    bySub.set(sub.code, sub);
    const cc = sub.code.slice(0, 2);
    let list = perCountry.get(cc);
    if (!list) perCountry.set(cc, (list = []));
    list.push(sub);
  }
  const none: readonly Subdivision[] = [];
  return {
    source,
    countries,
    country: (code) => byCountry.get(code),
    subdivision: (code) => bySub.get(code),
    subdivisionsOf: (country) => perCountry.get(country) ?? none,
    resolveState(input, country) {
      const v = input.trim().toUpperCase();
      if (bySub.has(v) && (!country || v.startsWith(`${country}-`))) return v;
      if (country && /^[A-Z0-9]{1,3}$/.test(v) && bySub.has(`${country}-${v}`)) return `${country}-${v}`;
      return undefined;
    },
  };
}

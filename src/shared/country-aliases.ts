// Other names people type for a country, for the country validator (src/shared/fields.ts):
// ISO 3166-1 alpha-3 codes (stable, from iso-codes' iso_3166-1.json) and the everyday names the
// ISO table does not hold ("UK", "USA", "America", "Holland"). The English names and common
// names come from iso-3166-data.ts when the tables are loaded.

/** alpha-3 then alpha-2, five letters a pair (`USAUS`), by alpha-3. */
const ALPHA3 = `ABWAW AFGAF AGOAO AIAAI ALAAX ALBAL ANDAD AREAE ARGAR ARMAM ASMAS ATAAQ ATFTF ATGAG AUSAU AUTAT AZEAZ BDIBI BELBE
BENBJ BESBQ BFABF BGDBD BGRBG BHRBH BHSBS BIHBA BLMBL BLRBY BLZBZ BMUBM BOLBO BRABR BRBBB BRNBN BTNBT BVTBV BWABW
CAFCF CANCA CCKCC CHECH CHLCL CHNCN CIVCI CMRCM CODCD COGCG COKCK COLCO COMKM CPVCV CRICR CUBCU CUWCW CXRCX CYMKY
CYPCY CZECZ DEUDE DJIDJ DMADM DNKDK DOMDO DZADZ ECUEC EGYEG ERIER ESHEH ESPES ESTEE ETHET FINFI FJIFJ FLKFK FRAFR
FROFO FSMFM GABGA GBRGB GEOGE GGYGG GHAGH GIBGI GINGN GLPGP GMBGM GNBGW GNQGQ GRCGR GRDGD GRLGL GTMGT GUFGF GUMGU
GUYGY HKGHK HMDHM HNDHN HRVHR HTIHT HUNHU IDNID IMNIM INDIN IOTIO IRLIE IRNIR IRQIQ ISLIS ISRIL ITAIT JAMJM JEYJE
JORJO JPNJP KAZKZ KENKE KGZKG KHMKH KIRKI KNAKN KORKR KWTKW LAOLA LBNLB LBRLR LBYLY LCALC LIELI LKALK LSOLS LTULT
LUXLU LVALV MACMO MAFMF MARMA MCOMC MDAMD MDGMG MDVMV MEXMX MHLMH MKDMK MLIML MLTMT MMRMM MNEME MNGMN MNPMP MOZMZ
MRTMR MSRMS MTQMQ MUSMU MWIMW MYSMY MYTYT NAMNA NCLNC NERNE NFKNF NGANG NICNI NIUNU NLDNL NORNO NPLNP NRUNR NZLNZ
OMNOM PAKPK PANPA PCNPN PERPE PHLPH PLWPW PNGPG POLPL PRIPR PRKKP PRTPT PRYPY PSEPS PYFPF QATQA REURE ROURO RUSRU
RWARW SAUSA SDNSD SENSN SGPSG SGSGS SHNSH SJMSJ SLBSB SLESL SLVSV SMRSM SOMSO SPMPM SRBRS SSDSS STPST SURSR SVKSK
SVNSI SWESE SWZSZ SXMSX SYCSC SYRSY TCATC TCDTD TGOTG THATH TJKTJ TKLTK TKMTM TLSTL TONTO TTOTT TUNTN TURTR TUVTV
TWNTW TZATZ UGAUG UKRUA UMIUM URYUY USAUS UZBUZ VATVA VCTVC VENVE VGBVG VIRVI VNMVN VUTVU WLFWF WSMWS YEMYE ZAFZA
ZMBZM ZWEZW`;

/** Everyday names: lower case, accents and punctuation aside (fold() of fields.ts), to alpha-2. */
const EVERYDAY: Readonly<Record<string, string>> = {
  uk: 'GB',
  'great britain': 'GB',
  britain: 'GB',
  'united kingdom': 'GB',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  'northern ireland': 'GB',
  usa: 'US',
  'united states': 'US',
  'united states of america': 'US',
  america: 'US',
  'the united states': 'US',
  holland: 'NL',
  'the netherlands': 'NL',
  'south korea': 'KR',
  'north korea': 'KP',
  russia: 'RU',
  'ivory coast': 'CI',
  'czech republic': 'CZ',
  turkey: 'TR',
  uae: 'AE',
  'the gambia': 'GM',
  vietnam: 'VN',
  iran: 'IR',
  syria: 'SY',
  laos: 'LA',
  bolivia: 'BO',
  venezuela: 'VE',
  tanzania: 'TZ',
  moldova: 'MD',
  taiwan: 'TW',
  'vatican city': 'VA',
  'cape verde': 'CV',
  swaziland: 'SZ',
  burma: 'MM',
  macedonia: 'MK',
};

let table: ReadonlyMap<string, string> | undefined;

/** Alpha-3 codes (lower case) and everyday names to alpha-2. */
export function countryAliases(): ReadonlyMap<string, string> {
  if (table) return table;
  const m = new Map<string, string>(Object.entries(EVERYDAY));
  for (const pair of ALPHA3.split(/\s+/)) m.set(pair.slice(0, 3).toLowerCase(), pair.slice(3));
  return (table = m);
}

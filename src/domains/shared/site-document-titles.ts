/**
 * The site documents' namespace of option-slot titles, shared by the site-documents
 * domain (which writes such titles), the option write of the factories domain and the
 * access-token grants check (which keep tokens out of documents they have no grant for).
 */

/** First `:`-separated part of every slot title the gateway writes for a site document (`~sd:<name>:…`). */
export const SITE_DOCUMENT_TITLE_PREFIX = '~sd';

/**
 * The site document a slot title names when it is in the site documents' namespace
 * (`~sd:<name>:…`; spaces around the parts ignored, in case the upstream trims them), else
 * null. Any such title counts, well-formed or not: a token may write or overwrite it only
 * with `write:siteDocument:<name>`.
 */
export function siteDocumentOfTitle(title: string): string | null {
  if (!title.includes(':')) return null;
  const [prefix = '', name = ''] = title.split(':');
  return prefix.trim() === SITE_DOCUMENT_TITLE_PREFIX ? name.trim() : null;
}

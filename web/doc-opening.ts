/**
 * Opening a document for its edit page. Unsent edits are kept in this browser (pending-store.ts) from
 * the first keystroke, so a reload or a closed tab resends them: the page's store is opened first. An
 * encrypted document (its key in the link's fragment, docs/encryption.md) is opened with the key;
 * without the key, or with a wrong one, the page says the key is needed (key-needed.ts); a link with a
 * key to a document that is not encrypted is not opened (what is typed would go out in plain text);
 * a document that cannot be opened shows why (open-failure.ts).
 */
import { isEncryptedDocument, NotEncryptedError, openDocument, randomClientId, WrongKeyError, type FolioClient, type LiveDocument, type ServiceInfo } from "../src/client/index.js";
import { showKeyProblem } from "./key-needed.js";
import { showOpenFailure } from "./open-failure.js";
import { openPendingStore, type PageStore } from "./pending-store.js";
import { displayName } from "./prefs.js";

export interface OpenedDocument {
  doc: LiveDocument;
  store: PageStore;
  /** What the service offers (a tracker, say); undefined when it did not answer. */
  info: ServiceInfo | undefined;
  /** The key of an encrypted document; undefined for a plain one. */
  key: string | undefined;
}

/** The opened document, or undefined when the page already shows why it cannot be shown. */
export async function openForPage(root: HTMLElement, client: FolioClient, id: string, key: string | undefined): Promise<OpenedDocument | undefined> {
  const store = await openPendingStore(id, randomClientId);
  let info: ServiceInfo | undefined;
  let doc: LiveDocument;
  try {
    // Without a key, unsent edits kept in this browser are taken over only once the document is known
    // to be plain: an encrypted one's are sealed, and would be taken for text.
    if (key === undefined && store.keeping === "kept" && isEncryptedDocument(await client.getDocument(id))) {
      showKeyProblem(root, "missing");
      return undefined;
    }
    [doc, info] = await Promise.all([
      // The event stream, or the long poll where the service or a proxy has none (docs/api.md, "The event stream").
      openDocument(client, id, { displayName: displayName() || undefined, pendingStore: store, clientId: store.clientId, feed: "stream", ...(key !== undefined ? { key } : {}) }),
      client.info().catch(() => undefined),
    ]);
  } catch (error) {
    if (error instanceof WrongKeyError) showKeyProblem(root, "wrong");
    // A link that promises encryption never opens a plain document for typing: whoever can change the
    // document (or the service) could have made it plain to read what is typed. Opening it without
    // the key is the reader's own choice.
    else if (error instanceof NotEncryptedError) showKeyProblem(root, "not-encrypted", false, `/d/${id}`);
    // The kept edits stay in storage (this page still holds their clientId); a retry reloads the page.
    else showOpenFailure(root, client, id, error, store.keeping === "kept", () => window.location.reload());
    return undefined;
  }
  // An encrypted document opened without its key (nothing was kept to send): closed, nothing of it shown.
  if (key === undefined && isEncryptedDocument(doc)) {
    doc.close();
    showKeyProblem(root, "missing");
    return undefined;
  }
  return { doc, store, info, key };
}

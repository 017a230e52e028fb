/** The link's key does not open the document (a wrong or malformed key): nothing of it is shown. */
export class WrongKeyError extends Error {
  override readonly name = "WrongKeyError";
}

/** A key was given for a document that is not encrypted (its title is not in the encrypted format). */
export class NotEncryptedError extends Error {
  override readonly name = "NotEncryptedError";
}

/** A plain title longer than an encrypted title can hold (docs/encryption.md, "Titles"). */
export class TitleTooLongError extends RangeError {
  override readonly name = "TitleTooLongError";
}

import { readFileSync } from 'node:fs';
import path from 'node:path';

/** A test vector of the encrypted file format (file-vectors.json); the plaintext is byte i = i mod 251. */
export interface FileVector {
  name: string;
  key: string;
  password: string | null;
  /** The envelope's salt, with a password. */
  envelopeSalt: string | null;
  fileSalt: string;
  plaintextLength: number;
  ciphertextLength: number;
  ciphertextSha256: string;
  /** The whole ciphertext, for the short vectors only. */
  ciphertext?: string;
}

export function fileVectors(): FileVector[] {
  const file = path.join(import.meta.dirname, 'file-vectors.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { vectors: FileVector[] }).vectors;
}

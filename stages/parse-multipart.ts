// parse-multipart: Buffer → Upload. The request bytes go through busboy as they arrive; the one file
// part is spooled to a private, already-unlinked temporary file (spool-file.ts: memory stays flat
// whatever the upload's size, the chunks being freed as they go by, see transient-buffers.ts; and a
// failover can send the file again), its bytes counted and shown to an optional probe (the WAV
// header scanner) on the way. Text fields are collected, and each is shown to `onField` as it
// arrives so a bad field refuses the request before the rest of the upload is read.
//
// Refused at once, without reading the rest of the body (400s; the connection is then closed):
// - the file passes `maxFileBytes` (file_too_large), the file's extension is not accepted
//   (invalid_file_format), the file part has no filename, a second file part, a file part under
//   another name, too many fields, a field over `maxFieldBytes`, a field `onField` refuses;
// - a body that is not multipart/form-data, has no boundary, or is malformed (busboy's error).
// Refused at the end of the body: no file part, an empty file, a body cut short.
// The temporary file is closed (and so gone) when the request ends, however it ends.
import { tmpdir } from 'node:os';
import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { GatewayError } from '../lib/errors.js';
import { errors } from '../lib/errors/index.js';
import type { Stage, StageFactory } from '../lib/stage.js';
import { SpoolFile } from './spool-file.js';

/** Sees the file's bytes as they stream by; its result travels with the upload. */
export interface ByteProbe<R> {
  feed(chunk: Buffer): void;
  result(totalBytes: number): R;
}

export interface FormField {
  name: string;
  value: string;
}

export interface SpooledFile<R> {
  /** the form field that carried it */
  field: string;
  filename: string;
  /** lower-case extension without the dot */
  extension: string;
  mimeType: string;
  bytes: number;
  /** the file's bytes from the start (each call reads the spooled file anew; valid until the request ends) */
  open(): AsyncIterable<Buffer>;
  /** the probe's result, or null when no probe looked at this file */
  probe: R | null;
}

export interface Upload<R> {
  fields: FormField[];
  file: SpooledFile<R>;
}

export interface MultipartOptions<R> {
  /** the field name of the file part */
  fileField: string;
  maxFileBytes: number;
  /** accepted file extensions, lower case without the dot */
  extensions: readonly string[];
  /** longest text field in bytes; default 64 KiB */
  maxFieldBytes?: number;
  /** most text fields; default 32 */
  maxFields?: number;
  /** directory of the temporary files; default the OS temporary directory */
  dir?: string;
  onField?: (field: FormField) => void;
  probe?: (extension: string) => ByteProbe<R> | null;
}

const MiB = 1024 * 1024;

const invalid = errors.formFieldInvalid;
const malformed = errors.multipartMalformed;

function sizeText(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MB (${bytes} bytes)` : `${bytes} bytes`;
}

export function parseMultipart<R>(opts: MultipartOptions<R>): StageFactory<Buffer, Upload<R>> {
  const maxFieldBytes = opts.maxFieldBytes ?? 64 * 1024;
  const maxFields = opts.maxFields ?? 32;
  const dir = opts.dir ?? tmpdir();
  const field = opts.fileField;
  const missingFilename = (): GatewayError => invalid(field, `the "${field}" part has no filename; send it as a file part with a filename such as "audio.wav" (the extension names the format).`);

  return (ctx): Stage<Buffer, Upload<R>> => {
    let parser: busboy.Busboy | null = null;
    let failure: GatewayError | null = null;
    let parsed = false;
    let drained = false;
    interface Spool {
      field: string;
      filename: string;
      extension: string;
      mimeType: string;
      file: SpoolFile | null;
      done: boolean;
      written: Promise<void>;
      probe: ByteProbe<R> | null;
    }
    let spool: Spool | null = null;
    const fields: FormField[] = [];
    const wakers = new Set<() => void>();

    const wake = (): void => {
      for (const w of [...wakers]) w();
    };
    const fail = (err: GatewayError): void => {
      failure ??= err;
      wake();
    };
    const check = (): void => {
      if (failure !== null) throw failure;
    };
    /** resolves once `ready()` holds or the request failed */
    const until = (ready: () => boolean): Promise<void> =>
      new Promise((resolve) => {
        const w = (): void => {
          if (failure === null && !ready()) return;
          wakers.delete(w);
          resolve();
        };
        wakers.add(w);
        w();
      });

    const onFile = (name: string, stream: Readable, info: busboy.FileInfo): void => {
      // busboy destroys an unfinished file stream with an error when the parser is torn down
      stream.on('error', () => {});
      const refuse = (err: GatewayError): void => {
        stream.resume();
        fail(err);
      };
      if (name !== field) return refuse(invalid(name || '(unnamed)', `unexpected file part; the audio goes in the "${field}" part, and other fields are text.`));
      if (!info.filename) return refuse(missingFilename());
      const extension = extname(info.filename).slice(1).toLowerCase();
      if (!opts.extensions.includes(extension)) {
        return refuse(errors.fileFormatUnsupported(field, extension, info.filename, opts.extensions));
      }
      const probe = opts.probe?.(extension) ?? null;
      stream.once('limit', () => fail(errors.fileTooLarge(field, sizeText(opts.maxFileBytes))));
      const s: Spool = { field: name, filename: info.filename, extension, mimeType: info.mimeType, file: null, done: false, written: Promise.resolve(), probe };
      spool = s;
      // until the file is open, busboy holds the part's bytes back (backpressure)
      s.written = SpoolFile.create(dir, `gateway-upload-${ctx.reqId}`)
        .then((file) => {
          s.file = file;
          return pipeline(stream, file.sink((chunk) => probe?.feed(chunk)));
        })
        .then(
          () => {
            s.done = true;
            if ((s.file?.bytes ?? 0) === 0) fail(invalid(field, `the uploaded file "${s.filename}" is empty.`));
            wake();
          },
          (err: unknown) => {
            s.done = true;
            // a file system error (it has a syscall) is the gateway's; anything else is busboy ending the part early
            if ((err as NodeJS.ErrnoException).syscall === undefined) fail(malformed(err));
            else {
              ctx.log.error({ err: String(err) }, 'could not spool the upload');
              fail(errors.uploadNotStored(err));
            }
          },
        );
    };

    const start = (): busboy.Busboy => {
      const type = ctx.headers['content-type'];
      if (type === undefined || !/^\s*multipart\/form-data\s*(;|$)/i.test(type)) {
        throw errors.contentTypeNotMultipart(type);
      }
      let bb: busboy.Busboy;
      try {
        bb = busboy({
          headers: ctx.headers,
          defParamCharset: 'utf8',
          limits: { fileSize: opts.maxFileBytes + 1, files: 1, fields: maxFields, fieldSize: maxFieldBytes },
        });
      } catch (err) {
        throw malformed(err);
      }
      bb.on('file', onFile);
      bb.on('field', (name: string, value: string, info: busboy.FieldInfo) => {
        if (!name) return fail(invalid('(unnamed)', 'a form part has no name.'));
        if (name === field) return fail(missingFilename());
        if (info.nameTruncated) return fail(invalid(name.slice(0, 40), 'the field name is too long.'));
        if (info.valueTruncated) return fail(invalid(name, `the value is longer than ${maxFieldBytes} bytes.`));
        const f = { name, value };
        fields.push(f);
        try {
          opts.onField?.(f);
        } catch (err) {
          fail(GatewayError.from(err));
        }
      });
      bb.on('filesLimit', () => fail(invalid(field, `send exactly one file part ("${field}").`)));
      bb.on('fieldsLimit', () => fail(invalid('(form)', `too many fields (at most ${maxFields}).`)));
      bb.on('drain', () => {
        drained = true;
        wake();
      });
      bb.on('error', (err: unknown) => fail(malformed(err)));
      bb.on('close', () => {
        parsed = true;
        wake();
      });
      parser = bb;
      return bb;
    };

    async function* backpressure(): AsyncGenerator<Upload<R>> {
      await until(() => drained);
      check();
    }

    return {
      name: 'parse-multipart',
      step(chunk) {
        const bb = parser ?? start();
        check();
        drained = false;
        const ok = bb.write(chunk);
        check();
        return ok ? undefined : backpressure();
      },
      async *flush() {
        const bb = parser ?? start();
        check();
        bb.end();
        await until(() => parsed && (spool === null || spool.done));
        check();
        const s = spool;
        if (s === null || s.file === null) throw invalid(field, `no file part; send the audio as a "${field}" part with a filename.`);
        const file = s.file;
        yield {
          fields,
          file: { field: s.field, filename: s.filename, extension: s.extension, mimeType: s.mimeType, bytes: file.bytes, probe: s.probe?.result(file.bytes) ?? null, open: () => file.read() },
        };
      },
      async close() {
        const s = spool;
        if (!parsed) {
          fail(errors.uploadCutShort());
          parser?.destroy();
        }
        if (s !== null) {
          await s.written;
          await s.file?.dispose().catch((err: unknown) => ctx.log.warn({ err: String(err) }, 'could not close the spooled upload'));
        }
      },
    };
  };
}

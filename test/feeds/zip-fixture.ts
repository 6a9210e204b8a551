/**
 * Writes a zip archive of one file, as Binance's data dumps are, for the importers' tests: a local
 * header, the deflated (or stored) bytes, one central directory entry and the end record.
 */
import { crc32, deflateRawSync } from 'node:zlib';

/** A zip holding `content` under `name`, deflated unless `stored`. */
export function zipOf(name: string, content: Buffer, options: { readonly stored?: boolean } = {}): Buffer {
  const method = options.stored === true ? 0 : 8;
  const data = method === 8 ? deflateRawSync(content) : content;
  const nameBytes = Buffer.from(name, 'utf8');
  const crc = crc32(content) >>> 0;
  // DOS time and date of 2024-08-09 00:00: any fixed value keeps the fixture reproducible.
  const dosTime = 0;
  const dosDate = ((2024 - 1980) << 9) | (8 << 5) | 9;

  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0, 6);
  local.writeUInt16LE(method, 8);
  local.writeUInt16LE(dosTime, 10);
  local.writeUInt16LE(dosDate, 12);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  local.writeUInt16LE(0, 28);

  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(0, 8);
  central.writeUInt16LE(method, 10);
  central.writeUInt16LE(dosTime, 12);
  central.writeUInt16LE(dosDate, 14);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt32LE(0, 42);

  const directoryOffset = local.length + nameBytes.length + data.length;
  const directorySize = central.length + nameBytes.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(directorySize, 12);
  end.writeUInt32LE(directoryOffset, 16);
  return Buffer.concat([local, nameBytes, data, central, nameBytes, end]);
}

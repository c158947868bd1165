/** What the receivers take and give for a slot. */

/** One slot to receive. */
export interface ReceivedSlot {
  /** 14 x K x nr complex, (symbol l, subcarrier k, antenna i) at 2 ((l K + k) nr + i). */
  readonly grid: Float32Array | Float64Array;
  /** The slot's number (its DM-RS: slot mod slotsPerFrame). */
  readonly slot: number;
}

/** One slot received. */
export interface SlotResult {
  /** The transport block's A decoded bits (0/1). */
  readonly tb: Uint8Array;
  /** Whether the transport block's CRC (CRC24A, or CRC16 for A <= 3824) checks. */
  readonly tbCrcOk: boolean;
  /** Per code block: whether its CRC24B checks (C > 1), or the transport block's (C = 1). */
  readonly blockCrcOk: readonly boolean[];
  /** Per code block: the decoder's iterations. */
  readonly iterations: Int32Array;
  /** The engine that received it. */
  readonly engine: 'cpu' | 'cuda';
}

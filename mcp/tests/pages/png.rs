//! Just enough PNG decoding to check the colours of a screenshot: 8-bit RGB or RGBA,
//! not interlaced (what both browsers and OffscreenCanvas write), through flate2.

use std::io::Read;

pub struct Image {
    pub width: usize,
    pub height: usize,
    channels: usize,
    pixels: Vec<u8>,
}

impl Image {
    /// The RGB of the pixel at (x, y).
    pub fn rgb(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * self.channels;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]]
    }

    /// The RGB at a fraction of the width and height.
    pub fn at(&self, fx: f64, fy: f64) -> [u8; 3] {
        let x = ((self.width as f64 * fx) as usize).min(self.width - 1);
        let y = ((self.height as f64 * fy) as usize).min(self.height - 1);
        self.rgb(x, y)
    }
}

/// Whether two colours differ by at most `tol` per channel.
pub fn near(a: [u8; 3], b: [u8; 3], tol: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= tol)
}

pub fn decode(bytes: &[u8]) -> Image {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let (mut width, mut height, mut channels) = (0, 0, 0);
    let mut idat = Vec::new();
    let mut pos = 8;
    while pos + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
        let kind = &bytes[pos + 4..pos + 8];
        let data = &bytes[pos + 8..pos + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(data[0..4].try_into().unwrap()) as usize;
                height = u32::from_be_bytes(data[4..8].try_into().unwrap()) as usize;
                assert_eq!(data[8], 8, "bit depth");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    other => panic!("colour type {other}"),
                };
                assert_eq!(data[12], 0, "interlaced");
            }
            b"IDAT" => idat.extend_from_slice(data),
            b"IEND" => break,
            _ => {}
        }
        pos += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..]).read_to_end(&mut raw).unwrap();
    let stride = width * channels;
    let mut pixels = vec![0u8; height * stride];
    for y in 0..height {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
            let a = if x >= channels { pixels[y * stride + x - channels] } else { 0 } as i32;
            let b = if y > 0 { pixels[(y - 1) * stride + x] } else { 0 } as i32;
            let c = if x >= channels && y > 0 { pixels[(y - 1) * stride + x - channels] } else { 0 } as i32;
            let pred = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => (a + b) / 2,
                4 => {
                    let p = a + b - c;
                    let (pa, pb, pc) = ((p - a).abs(), (p - b).abs(), (p - c).abs());
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("filter {f}"),
            };
            pixels[y * stride + x] = (line[x] as i32 + pred) as u8;
        }
    }
    Image { width, height, channels, pixels }
}

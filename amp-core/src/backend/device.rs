//! The wgpu device behind a GPU accelerator: created lazily, once, with the
//! adapter's full limits and the optional features the runtime uses.

use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use crate::{Error, Result};

/// Optional features requested when the adapter offers them: GPU timestamps
/// (benchmarks), f64 (`supports_double_precision`), f16
/// (`supports_half_precision`), subgroups, the on-disk pipeline cache, f32
/// atomics and immediates (small per-launch constants).
const WANTED_FEATURES: wgpu::Features = wgpu::Features::TIMESTAMP_QUERY
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES)
    .union(wgpu::Features::SHADER_F64)
    .union(wgpu::Features::SHADER_F16)
    .union(wgpu::Features::SUBGROUP)
    .union(wgpu::Features::PIPELINE_CACHE)
    .union(wgpu::Features::SHADER_FLOAT32_ATOMIC)
    .union(wgpu::Features::IMMEDIATES);

/// The features a device on `adapter` is created with.
pub(crate) fn features_for(adapter: &wgpu::Adapter) -> wgpu::Features {
    adapter.features() & WANTED_FEATURES
}

/// One GPU adapter and, once first needed, its device.
pub(crate) struct GpuAdapter {
    pub(crate) adapter: wgpu::Adapter,
    label: String,
    device: OnceLock<Result<Arc<DeviceContext>>>,
}

impl GpuAdapter {
    pub(crate) fn new(adapter: wgpu::Adapter, label: String) -> Self {
        GpuAdapter {
            adapter,
            label,
            device: OnceLock::new(),
        }
    }

    /// The device, created on first use. A failed creation is remembered and
    /// reported again on every later call.
    pub(crate) fn device(&self) -> Result<&Arc<DeviceContext>> {
        self.device
            .get_or_init(|| DeviceContext::create(&self.adapter, &self.label).map(Arc::new))
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// Whether the adapter is Mesa's llvmpipe (lavapipe on Vulkan), whose
/// loops stop after 65,535 iterations per work item.
pub(crate) fn is_llvmpipe(info: &wgpu::AdapterInfo) -> bool {
    info.device_type == wgpu::DeviceType::Cpu && info.name.to_ascii_lowercase().contains("llvmpipe")
}

/// A wgpu device and queue, with the state needed to turn device loss and
/// uncaptured errors into [`Error`] values instead of panics.
pub(crate) struct DeviceContext {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    health: Arc<Health>,
    scratch: OnceLock<wgpu::Buffer>,
    /// State that a layer above the backend keeps per device (the kernel
    /// module's compiled pipelines), of a type the backend does not know:
    /// see [`attached`](Self::attached).
    attached: Mutex<Vec<Arc<dyn std::any::Any + Send + Sync>>>,
    /// The driver's pipeline cache, persisted on disk, where the adapter
    /// offers one.
    pub(crate) pipeline_cache: Option<DiskPipelineCache>,
    /// On Mesa's llvmpipe: the status that guarded kernels set when a work
    /// item nears the driver's loop limit.
    pub(crate) loop_guard: Option<LoopGuard>,
    /// The one thread that completes this device's awaited futures.
    pub(crate) waiter: super::waiter::DeviceWaiter,
    /// Whether the adapter is a software one (its device memory is the
    /// host's).
    software: bool,
}

/// The status buffer of llvmpipe's loop guard: kernels compiled with the
/// guard count the loop entries and iterations of each work item and store
/// 1 here when a count reaches `amp_ir::LOOP_GUARD_LIMIT`, below the 65,535 at
/// which llvmpipe silently ends every loop of the work item. Checked when
/// the device's work is waited for; a set status loses the device (as a
/// GPU's watchdog would), so that no result computed with cut loops is
/// ever read.
pub(crate) struct LoopGuard {
    pub(crate) status: wgpu::Buffer,
    /// A guarded kernel was recorded since the status was last read.
    armed: std::sync::atomic::AtomicBool,
}

impl LoopGuard {
    /// Notes that a guarded kernel was recorded.
    pub(crate) fn armed(&self) {
        self.armed.store(true, std::sync::atomic::Ordering::Release);
    }
}

/// A `wgpu::PipelineCache` backed by a file, so that compiled kernels
/// survive the process (the driver skips recompiling known shaders).
pub(crate) struct DiskPipelineCache {
    pub(crate) cache: wgpu::PipelineCache,
    path: std::path::PathBuf,
}

impl DiskPipelineCache {
    /// The directory: `AMP_CACHE_DIR`, else `amp-rs` in the platform's
    /// cache directory (`$XDG_CACHE_HOME` or `~/.cache` on Linux,
    /// `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows).
    fn dir() -> Option<std::path::PathBuf> {
        if let Some(d) = std::env::var_os("AMP_CACHE_DIR") {
            return Some(d.into());
        }
        dirs::cache_dir().map(|d| d.join("amp-rs"))
    }

    fn open(adapter: &wgpu::Adapter, device: &wgpu::Device) -> Option<DiskPipelineCache> {
        if !device.features().contains(wgpu::Features::PIPELINE_CACHE) {
            return None;
        }
        let key = wgpu::util::pipeline_cache_key(&adapter.get_info())?;
        let Some(dir) = Self::dir() else {
            log::debug!("no cache directory: compiled pipelines are not kept between runs");
            return None;
        };
        let path = dir.join(key);
        let data = match std::fs::read(&path) {
            Ok(d) => {
                log::debug!(
                    "pipeline cache {} loaded ({} bytes)",
                    path.display(),
                    d.len()
                );
                Some(d)
            }
            Err(e) => {
                log::debug!("pipeline cache {} not loaded: {e}", path.display());
                None
            }
        };
        // SAFETY: wgpu requires `data` to be what `PipelineCache::get_data`
        // returned before, for an adapter with the same
        // `pipeline_cache_key`. The file is named by that key and written
        // only by `save` (whole, through a rename), from `get_data`. wgpu
        // checks the header it adds (format, key, size: a mismatch falls
        // back to an empty cache with `fallback: true`), not the driver's
        // payload: a file changed by anything else is outside this promise,
        // as wgpu's documentation says of caches saved to disk.
        let cache = unsafe {
            device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                label: Some("amp-rs pipeline cache"),
                data: data.as_deref(),
                fallback: true,
            })
        };
        Some(DiskPipelineCache { cache, path })
    }

    /// Writes the cache to disk (best effort: a cache that cannot be saved
    /// only costs compile time later).
    pub(crate) fn save(&self) {
        let Some(data) = self.cache.get_data() else {
            return;
        };
        let Some(dir) = self.path.parent() else {
            return;
        };
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        match std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&tmp, &data))
            .and_then(|()| std::fs::rename(&tmp, &self.path))
        {
            Ok(()) => log::debug!(
                "pipeline cache {} saved ({} bytes)",
                self.path.display(),
                data.len()
            ),
            Err(e) => log::warn!("pipeline cache {} not saved: {e}", self.path.display()),
        }
    }
}

#[derive(Default)]
struct Health {
    /// Set once, by the device-lost callback (or by an uncaptured internal
    /// error, which leaves the device unusable).
    lost: Mutex<Option<String>>,
    /// The first uncaptured validation or out-of-memory error, kept for
    /// diagnostics; operations that can fail that way use error scopes.
    uncaptured: Mutex<Option<String>>,
}

impl DeviceContext {
    fn create(adapter: &wgpu::Adapter, label: &str) -> Result<DeviceContext> {
        let desc = wgpu::DeviceDescriptor {
            label: Some(label),
            required_features: features_for(adapter),
            required_limits: adapter.limits(),
            memory_hints: wgpu::MemoryHints::Performance,
            ..Default::default()
        };
        let (device, queue) = futures::executor::block_on(adapter.request_device(&desc))
            .map_err(|e| Error::Runtime(format!("cannot create a device on {label}: {e}")))?;
        let health = Arc::new(Health::default());
        let on_lost = Arc::clone(&health);
        device.set_device_lost_callback(move |reason, message| {
            let reason = match reason {
                wgpu::DeviceLostReason::Destroyed => "the device was destroyed",
                _ => "the device was lost",
            };
            let text = if message.is_empty() {
                reason.to_string()
            } else {
                format!("{reason}: {message}")
            };
            on_lost.lost.lock().get_or_insert(text);
        });
        let on_error = Arc::clone(&health);
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            let internal = matches!(error, wgpu::Error::Internal { .. });
            let text = error.to_string();
            if internal {
                on_error.lost.lock().get_or_insert(text.clone());
            }
            on_error.uncaptured.lock().get_or_insert(text);
        }));
        let pipeline_cache = DiskPipelineCache::open(adapter, &device);
        let loop_guard = is_llvmpipe(&adapter.get_info()).then(|| LoopGuard {
            status: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("amp-rs loop guard"),
                size: 4,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            armed: Default::default(),
        });
        Ok(DeviceContext {
            device,
            queue,
            health,
            scratch: OnceLock::new(),
            attached: Mutex::new(Vec::new()),
            pipeline_cache,
            loop_guard,
            waiter: Default::default(),
            software: adapter.get_info().device_type == wgpu::DeviceType::Cpu,
        })
    }

    /// Whether the adapter is a software one (lavapipe), whose device
    /// memory is the host's.
    pub(crate) fn is_software(&self) -> bool {
        self.software
    }

    /// The per-device state of type `T` that a layer above the device
    /// attached (created on first use): the kernel module's compiled
    /// pipelines, the upload staging ring. The device keeps them without
    /// depending on their modules, so that dependencies flow one way.
    pub(crate) fn attached<T: std::any::Any + Send + Sync + Default>(&self) -> Arc<T> {
        let mut list = self.attached.lock();
        if let Some(found) = list.iter().find(|a| a.is::<T>()) {
            return Arc::clone(found)
                .downcast::<T>()
                .expect("the entry is a T: checked by `is`");
        }
        let new = Arc::new(T::default());
        list.push(Arc::clone(&new) as Arc<dyn std::any::Any + Send + Sync>);
        new
    }

    /// `Err(AcceleratorViewRemoved)` once the device is lost; `Ok` before.
    pub(crate) fn check(&self) -> Result<()> {
        match &*self.health.lost.lock() {
            Some(reason) => Err(Error::AcceleratorViewRemoved {
                reason: reason.clone(),
            }),
            None => Ok(()),
        }
    }

    /// The first uncaptured wgpu error, if any was reported.
    #[allow(dead_code)] // read by diagnostics and tests of later layers
    pub(crate) fn first_uncaptured_error(&self) -> Option<String> {
        self.health.uncaptured.lock().clone()
    }

    /// Blocks until the submission `index` (and every earlier one) finished.
    pub(crate) fn wait_for(&self, index: &wgpu::SubmissionIndex) -> Result<()> {
        self.check()?;
        let poll = self.device.poll(wgpu::PollType::Wait {
            submission_index: Some(index.clone()),
            timeout: None,
        });
        self.check()?;
        poll.map(drop)
            .map_err(|e| Error::Runtime(format!("waiting for the device failed: {e}")))?;
        self.check_loop_guard()
    }

    /// Reads llvmpipe's loop-guard status if a guarded kernel ran since it
    /// was last read (waiting for the device's work); a set status loses the
    /// device.
    ///
    /// # Errors
    ///
    /// `AcceleratorViewRemoved` if a kernel neared llvmpipe's loop limit,
    /// or the device was lost.
    pub(crate) fn check_loop_guard(&self) -> Result<()> {
        let Some(guard) = &self.loop_guard else {
            return Ok(());
        };
        if !guard.armed.swap(false, std::sync::atomic::Ordering::AcqRel) {
            return Ok(());
        }
        let mut status = 0;
        self.read_buffer(&guard.status, 0..4, |data| {
            status = u32::from_ne_bytes([data[0], data[1], data[2], data[3]]);
            Ok(())
        })?;
        if status != 0 {
            self.health.lost.lock().get_or_insert(format!(
                "a kernel ran {} or more loop entries and iterations in one work item on llvmpipe, which silently ends every loop of a work item after 65,535: its results are not Rust's (run it on the CPU accelerator or another GPU; see docs/kernel-language.md)",
                amp_ir::LOOP_GUARD_LIMIT
            ));
        }
        self.check()
    }

    /// Copies `range` of a GPU buffer to the host, blocking, and hands the
    /// bytes to `take` while they are mapped (no copy of its own).
    ///
    /// # Errors
    ///
    /// `OutOfMemory` if the staging buffer cannot be allocated; device loss;
    /// what `take` returns.
    pub(crate) fn read_buffer(
        &self,
        buffer: &wgpu::Buffer,
        range: std::ops::Range<u64>,
        take: impl FnOnce(&[u8]) -> Result<()>,
    ) -> Result<()> {
        self.check()?;
        let len = range.end - range.start;
        let staging = self.staging_buffer(len, "amp-rs download")?;
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("amp-rs download"),
            });
        encoder.copy_buffer_to_buffer(buffer, range.start, &staging, 0, len);
        let index = self.queue.submit([encoder.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.wait_for(&index)?;
        let mapped = match rx.try_recv() {
            Ok(r) => r,
            // The callback runs during a poll; poll until it has.
            Err(_) => {
                self.poll_until_idle()?;
                rx.recv()
                    .map_err(|_| Error::Runtime("buffer mapping was cancelled".to_string()))?
            }
        };
        mapped.map_err(|e| {
            self.check()
                .err()
                .unwrap_or_else(|| Error::Runtime(format!("cannot read device memory: {e}")))
        })?;
        let taken = {
            let data = staging
                .get_mapped_range(..)
                .map_err(|e| Error::Runtime(format!("cannot read device memory: {e}")))?;
            take(&data)
        };
        staging.unmap();
        self.attached::<super::buffer_pool::BufferPool>()
            .give(self, staging);
        taken
    }

    /// A mappable buffer of `len` bytes that a copy can target.
    ///
    /// # Errors
    ///
    /// `OutOfMemory` if the device cannot allocate it (wgpu reports that through
    /// an error scope, not a panic).
    pub(crate) fn staging_buffer(&self, len: u64, label: &str) -> Result<wgpu::Buffer> {
        const USAGE: wgpu::BufferUsages =
            wgpu::BufferUsages::MAP_READ.union(wgpu::BufferUsages::COPY_DST);
        let pool = self.attached::<super::buffer_pool::BufferPool>();
        if let Some(kept) = pool.take(self, len, USAGE, false) {
            return Ok(kept);
        }
        let staging = pool.create(
            self,
            &wgpu::BufferDescriptor {
                label: Some(label),
                size: len,
                usage: USAGE,
                mapped_at_creation: false,
            },
        );
        staging.map_err(|e| Error::OutOfMemory {
            accelerator: "a GPU accelerator".to_string(),
            detail: format!("cannot allocate a staging buffer of {len} bytes for a download: {e}"),
        })
    }

    /// Blocks until every submission on the device finished.
    pub(crate) fn poll_until_idle(&self) -> Result<()> {
        self.check()?;
        let poll = self.device.poll(wgpu::PollType::wait_indefinitely());
        self.check()?;
        poll.map(drop)
            .map_err(|e| Error::Runtime(format!("waiting for the device failed: {e}")))
    }

    /// A small buffer for commands that need a target but no data (the
    /// queuing tests' probe command).
    pub(crate) fn scratch_buffer(&self) -> &wgpu::Buffer {
        self.scratch.get_or_init(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("amp-rs scratch"),
                size: 256,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        })
    }

    /// Destroys the device, as a driver reset would lose it.
    pub(crate) fn destroy(&self) {
        self.device.destroy();
        // Backends that defer the lost callback run it during a poll.
        let _ = self.device.poll(wgpu::PollType::Poll);
    }
}

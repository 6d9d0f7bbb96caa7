"""Workloads the tools cannot size, read from a question (zh and en).

The tools size LLM inference and training, and *serving* the image, video, speech, embedding and reranker
models of ``tools/data/media_models.yaml``. Everything else is out of reach: training those media models,
media models outside the registry (TTS, other video models), computer-vision models (YOLO, ResNet),
classic machine learning (XGBoost, scikit-learn) and CPU-only jobs. This module names which of those a
question is about, so the answer can say exactly what is and is not computed and cite only passages
about that workload.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from assistant.ops_words import OPS_WORDS, ops_subject
from assistant.reading import compiled

# Other clouds and their instance names: not in the catalog, and "p4d" or "A100 v4" is no request for a GPU.
OTHER_CLOUD = (
    r"\baws\b|amazon\s+web\s+services|\bec2\b|azure|\bgcp\b|google\s+cloud|腾讯云|华为云|火山引擎|百度智能云|ucloud|"
    # GPU rental clouds and marketplaces: their prices are in no catalog here either.
    r"runpod|\blambda(?:\s+labs|\s+cloud)?\b|vast\.?ai|coreweave|paperspace|autodl|恒源云|矩池云|oracle\s+cloud|"
    r"\boci\b|digitalocean|vultr|linode|together\s+ai|hyperstack|nebius"
)
_OTHER_CLOUD_TYPES = (
    r"\b(?:p[345][a-z]{0,2}|g[456][a-z]{0,2}|trn1n?|inf[12])\.\d*x?large\b|"  # AWS: p4d.24xlarge, g5.12xlarge
    r"\b(?:standard_)?n[cdv](?:\d+[a-z_]*(?:\s+(?:a100|h100|t4|v100|a10))?(?:[\s_]+v\d)?|"  # Azure: NC24ads A100 v4
    r"[a-z_]*\s+(?:a100|h100|t4|v100|a10)[\s_]+v\d)\b|"
    r"\ba[23]-(?:highgpu|megagpu|ultragpu)-\w+\b"  # GCP: a2-highgpu-1g
)


# Managed AI services, priced apart from the ECS instances of the price table.
_MANAGED = r"pai[\s\-]?(?:eas|dsw|dlc)|百炼|bailian|model\s*studio|函数计算|function\s+compute"

ReachTopic = Literal[
    "accelerator", "non_ml", "local", "image", "speech", "embedding", "video", "vlm", "encoder", "vision", "other_ml",
    "classic_ml", "cpu", "purchase", "other_cloud", "storage_price", "closed_model", "rl_llm", "cloud_price",
    "cloud_ops", "science", "own_model", "database", "unknown",
]

# Checked in this order: a question about a video model is not an image question because it says "生成".
_TOPICS: tuple[tuple[ReachTopic, str], ...] = (
    # Served only through their vendors' APIs: no weights to deploy ("gpt-oss" is open and a registry word).
    ("closed_model", r"\bgpt-?(?:4|3\.5|5)\w*|\bchatgpt\b|\bclaude\b|\bgemini\b|qwen-?(?:max|plus|turbo)\b|"
     r"文心一言|豆包"),
    # Accelerators that are no GPU of the catalog: other vendors' AI chips and other clouds' (their names as written).
    ("accelerator", r"昇腾\s*\d*[a-z]?|\bascend\s*\d*[a-z]?\b|\b910b\b|\bmi\s?[23]\d{2}x?\b|amd\s+instinct|"
     r"\bgaudi\s*\d?\b|habana|\btpu(?:s|\s*v\d\w*)?\b|trainium|inferentia|含光\s*\d*|hanguang|寒武纪|cambricon|思元\s*\d*|昆仑芯|"
     r"kunlunxin|燧原|enflame|沐曦|metax|壁仞|biren|海光\s*dcu|\bgroq\b|cerebras"),
    # Reinforcement-learning fine-tuning of an LLM: rollouts, reward and reference models the tools do not model.
    # (Robots and games are RL of other models: "other_ml" below.)
    ("rl_llm", r"^(?![\s\S]*(?:robot|机器人|仿真|isaac|mujoco|\bgym\b|游戏|\bgames?\b))[\s\S]*?"
     r"(?:\bgrpo\b|\bdapo\b|\brlhf\b|\bppo\b|\brl\s+(?:fine[\s\-]?tun\w*|training)|"
     r"reinforcement[\s\-]learning\s+fine[\s\-]?tun\w*|强化学习(?:微调|训练)|(?:用|基于)强化学习.{0,12}微调)"),
    ("non_ml", r"挖矿|mining|crypto\w*|bitcoin|比特币|ethereum|以太坊|cloud\s+gaming|云游戏|blender|3d\s+render\w*|"
     r"hashcat|john\s+the\s+ripper|password\s+crack\w*|crack\w*\s+(?:\w+\s+)?(?:passwords?|hash(?:es)?)|密码破解|破解密码|"
     r"video\s+(?:transcod|encod)\w*|视频转码|渲染"),
    # Databases and search engines beside the model (a RAG stack's vector store): CPU and memory services
    ("database", r"milvus|weaviate|qdrant|pinecone|chroma\s*db|faiss\s+(?:index|server)|elasticsearch|opensearch|"
     r"vector\s+(?:db|database|store)|向量(?:数据)?库|向量数据库|postgres\w*|pgvector|\bmysql\b|\bredis\b|mongodb"),
    ("local", r"macbook|\bmac\s*(?:mini|studio|pro)?\b|apple\s+silicon|\bm[1-4]\s*(?:pro|max|ultra)?\s*(?:chip|芯片)|"
     r"laptop|笔记本(?:电脑)?|my\s+(?:pc|computer|desktop)|本地电脑|家用电脑|on\s+(?:a\s+|the\s+)?cpus?\b|"
     r"用\s*cpu\s*(?:跑|推理|部署)|cpu\s*(?:上跑|推理)|llama\.cpp|\bgguf\b|"
     r"(?:纯|只用|只有|仅用)\s*cpu\s*(?:来)?(?:跑|推理|部署|运行)|cpu[\s\-]*only\s+(?:inference|serving|run)|"
     r"(?:没有|不用)\s*(?:显卡|gpu).{0,12}(?:跑|推理|部署)|"
     r"(?:tokens?/s|tok/s|tokens?\s+per\s+second|速度|每秒).{0,60}\bcpu|\bcpu.{0,60}(?:tokens?/s|tok/s|速度|每秒)"),
    # Scientific computing: simulation codes and scientific models, sized by their own benchmarks, not by ours.
    ("science", r"\bcfd\b|openfoam|ansys|fluent\b|comsol|有限元|finite[\s\-]element|流体(?:力学|仿真|模拟)|"
     r"molecular\s+dynamics|分子动力学|分子模拟|gromacs|lammps|\bnamd\b|\bvasp\b|第一性原理|量子化学|"
     r"气象|天气预报|weather\s+(?:models?|forecast\w*|prediction)|climate\s+(?:models?|simulation)|"
     r"genom\w*|基因组|测序|monte[\s\-]carlo|蒙特卡[洛罗]|科学计算|scientific\s+computing|"
     r"(?:physics|engineering|crash|fluid)\s+simulations?|(?:物理|工程)仿真"),
    ("other_ml", r"dlrm|recommend(?:ation|er)\s+(?:model|system)s?|推荐(?:模型|系统|算法)|ctr\s+(?:model|prediction)|"
     r"点击率|deepfm|双塔|two[\s\-]tower|召回模型|排序模型|ranking\s+model|click[\s\-]?through|\bctr\b|"
     r"猜你喜欢|recsys|\bdcn\b|ads?\s+ranking|广告(?:排序|推荐|点击)|"
     r"pytorch\s+geometric|\bpyg\b|\bdgl\b|graphsage|link\s+prediction|node\s+classification|图计算|"
     r"self[\s\-]play|自博弈|alphazero|alphago|muzero|"
     r"三维重建|3d\s+reconstruct\w*|photogrammetry|colmap|instant[\s\-]?ngp|点云|point[\s\-]clouds?|"
     r"wide\s*(?:&|and)\s*deep|graph\s+neural|\bgnn\b|图神经网络|time[\s\-]series\s+forecast\w*|时序预测|\blstms?\b|"
     r"reinforcement\s+learning|强化学习|\bppo\b\s+(?:for\s+)?(?:robot|game)|alphafold|protein\s+folding|蛋白质|"
     # Generators of other media: music and sound, 3D assets and scenes.
     r"musicgen|audiocraft|stable[\s\-]audio|\bsuno\b|music\s+(?:generat\w+|clips?|tracks?|models?)|"
     r"(?:generat\w*|compos\w*|creat\w*|mak\w*)\s+(?:\w+\s+){0,3}?(?:music|songs?|sound\s+effects?)\b|"
     r"(?:生成|创作|做)\s*(?:音乐|歌曲|音效)|(?:音乐|歌曲|音效)\s*生成|作曲|"
     r"text[\s\-]to[\s\-](?:music|audio|3d)|文生\s*3d|图生\s*3d|3d\s*(?:生成|建模|资产|模型生成)|生成\s*3d|"
     r"3d\s+(?:generation|assets?|meshes|mesh\s+generation)|hunyuan[\s\-]?3d|triposr|trellis|\bnerf\b|"
     r"gaussian\s+splatting|高斯泼溅"),
    ("classic_ml", r"xgboost|lightgbm|catboost|sklearn|scikit[\s\-]?learn|随机森林|random\s+forests?|逻辑回归|"
     r"logistic\s+regression|\bsvm\b|决策树|decision\s+trees?|gradient[\s\-]boost\w*|梯度提升|表格数据|tabular|"
     r"k[\s\-]?means|聚类|线性回归|linear\s+regression|传统机器学习|classic(?:al)?\s+(?:ml|machine\s+learning)|"
     r"isolation\s+forest|anomaly\s+detection|异常检测|\barima\b|\bprophet\b|(?:sales|demand)\s+forecast\w*|"
     r"forecast\w*\s+(?:the\s+|our\s+)?(?:demand|sales)\b|"
     r"销量预测|需求预测|时间序列"),
    ("video", r"视频生成|生成视频|文生视频|图生视频|出视频|text[\s\-]to[\s\-]video|image[\s\-]to[\s\-]video|"
     r"video\s+(?:generation|diffusion|model)|generat\w+\s+videos?|(?<![\w\-])sora\b|hunyuan[\s\-]?video|混元视频|cogvideo\w*|"
     r"可灵|kling|stable\s+video(?:\s+diffusion)?|\bsvd\b|wan2|万相|ltx[\s\-]?video|open[\s\-]?sora|mochi[\s\-]?1|"
     r"animatediff|pyramid[\s\-]?flow"),
    ("speech", r"whisper|\b(?!watts\b)[a-z0-9]{0,6}tts\b|配音|语音播报|read\w*\s+(?:\w+\s+)?aloud|"
     r"\basr\b|语音识别|语音合成|语音转文字|声音克隆|voice\s+clon\w*|"
     r"speech[\s\-]to[\s\-]text|text[\s\-]to[\s\-]speech|speech\s+(?:recognition|synthesis)|cosyvoice|paraformer|sensevoice|funasr|"
     r"diariz\w+|说话人(?:分离|识别|日志)|声纹|speaker\s+(?:recognition|verification|identification)|fish[\s\-]?speech|gpt[\s\-]?sovits|bark\b"),
    ("embedding", r"embedding|向量模型|嵌入模型|向量化|\bbge\b|bge[\s\-]|text-embedding|rerank\w*|重排|"
     r"\bm3e\b|gte[\s\-]"),
    ("image", r"stable[\s\-]?diffusion|sdxl|\bsd\s*(?:1\.5|2|3)|\bflux\b|midjourney|文生图|图像生成|生成图片|生图|画图|"
     r"text[\s\-]to[\s\-]image|image\s+generation|diffusion\s+models?|扩散模型|comfyui|controlnet|qwen[\s\-]?image|"
     r"stylegan\w*|\bgans?\b|生成对抗网络"),
    ("vlm", r"qwen[\d.]*[\s\-]?vl|\bvlm\b|vision[\s\-]language|视觉语言|多模态|llava|internvl|minicpm[\s\-]?v|"
     r"glm[\s\-]?4v"),
    ("encoder", r"(?<![a-z])(?:bert|roberta|albert|deberta\w*|electra|ernie)(?![a-z])|bert[\s\-]|文本分类|"
     r"text\s+classif\w*|情感分析|sentiment\s+(?:analysis|classif\w*|model)|命名实体|\bner\b|token\s+classif\w*"),
    ("vision", r"ocr\b|paddle\w*|文字识别|换脸|face[\s\-]?swap\w*|deepfake|人脸识别|face[\s\-]recognition|超分|"
     r"super[\s\-]resolution|抠图|background\s+removal|数字人|digital\s+human|yolo\w*|resnet\w*|\bvit\b|efficientnet|目标检测|图像分类|图片分类|"
     r"语义分割|实例分割|检测模型|(?:图像|影像|器官|病灶|医学)\s*分割|分割模型|u[\s\-]?net|医学影像|"
     r"pose\s+estimation|姿态(?:估计|识别|检测)|keypoint|关键点检测|object\s+tracking|目标跟踪|车牌|license\s+plates?|"
     r"(?:照片|图片|图像)\S{0,4}修复|修复\S{0,3}(?:照片|图片|图像)|上色|coloriz\w*|colouris\w*|"
     r"restor\w+\s+(?:old\s+)?(?:photos?|images?|pictures?)|"
     r"upscal\w*\s+(?:\w+\s+){0,3}?(?:images?|photos?|pictures?|videos?)|(?:image|photo|video)\s+upscal\w*|esrgan|"
     r"人脸检测|摄像头|camera\s+(?:feeds?|streams?)|"
     r"object\s+detect\w*|image\s+classif\w*|(?:semantic|instance)\s+segmentation|detectron\w*|"
     r"segment\s+anything|\bsam\s?\d?\b|目标分割|视频分割|cnn\b|卷积神经网络|imagenet|coco\s+dataset|"
     r"vision\s+transformers?|视觉\s*transformer|open[\s\-]?clip|\bsiglip\b|eva[\s\-]clip|"
     r"\bclip\b(?=(?:[\s\-]+(?:vit\S*|l/14|b/32|h/14))?\s+(?:on|model|embeddings?|encoder|for|with)\b)"),
    ("cloud_price", r"(?:带宽|流量|egress|bandwidth|\bcdn\b|\bslb\b|负载均衡|load\s+balancers?|\brds\b|polardb|"
     r"云数据库|公网\s*ip|\beip\b|data\s+transfer|" + _MANAGED
     + r").{0,40}(?:价|费|多少钱|收费|成本|price|pricing|cost|per\s+gb)|"
     r"(?:价|费|多少钱|收费|成本|price|pricing|cost)\w*.{0,40}"
     r"(?:带宽|流量|egress|bandwidth|\bcdn\b|\bslb\b|\brds\b|data\s+transfer|" + _MANAGED + ")"),
    # Running the cloud, not choosing its GPUs: network, accounts and billing paperwork, server administration.
    ("cloud_ops", OPS_WORDS + r"|\bvpcs?\b|vpc\s+peering|\bpeering\b|\bvpn\b|express\s+connect|"
     r"security\s+groups?|firewall|"
     r"(?:open|expose|allow|whitelist)\s+(?:the\s+|a\s+)?ports?\b|\bport\s+\d{2,5}\b|domain\s+names?|\bdns\b|"
     r"\bicp\b|ssl\s+cert\w*|(?:get|issue|request|download)\s+(?:an?\s+|the\s+|my\s+)?(?:vat\s+)?invoices?|"
     r"invoices?\s+for\s+(?:my|our|the)\s+(?:bill|account|instances?|order|payment)|refund|"
     r"real[\s\-]name\s+(?:verification|authentication)|sub[\s\-]?accounts?|\bram\s+(?:users?|roles?|polic\w+)|"
     r"(?:root|admin\w*|login)\s+password|(?:reset|change|forgot)\s+(?:the\s+|my\s+)?password|\bssh\s+(?:keys?|into|login)|"
     r"log\s*in\s+to\s+(?:the\s+|my\s+)?(?:instance|server|box)|remote\s+desktop|\brdp\b|"
     r"install\w*\s+(?:the\s+)?(?:nvidia\s+|gpu\s+|cuda\s+)?drivers?|(?:nvidia|gpu|cuda)\s+drivers?\s+install\w*|"
     r"专有网络|对等连接|云企业网|\bcen\b|专线|高速通道|安全组|防火墙|(?:开放|开通|放行|打开|开)\s*\d*\s*端口|端口\s*\d{2,5}|"
     r"域名|备案|ssl\s*证书|https\s*证书|开发票|开票|报销|退款|实名认证|子账号|ram\s*(?:用户|角色|权限|授权)|"
     r"续费|续订|退订|renew\w*|auto[\s\-]?renew\w*|unsubscrib\w*|(?:instance|subscription)\s+expir\w+|"
     r"(?:重置|修改|忘记|忘了|找回)\S{0,6}密码|root\s*密码|远程(?:连接|登录|桌面)|ssh\s*(?:登录|连接|密钥)|"
     r"(?:安装|装)\s*(?:nvidia\s*|gpu\s*|cuda\s*)?驱动|驱动(?:怎么|如何)?(?:安装|装)"),
    ("cpu", r"cpu[\s\-]*only|only\s+(?:a\s+)?cpus?|纯\s*cpu|只用\s*cpu|只有\s*cpu|"
     r"cpu\s*(?:实例|机器|服务器|box|instance|server|machine)|没有\s*gpu|不用\s*gpu|no\s+gpus?\b|without\s+(?:a\s+)?gpus?|spark|hadoop|\betl\b|flink|"
     r"数据库|database|mysql|postgres\w*|redis|web\s+server|nginx|django|flask|wordpress|spring\s*boot|\bphp\b|"
     r"no\s+(?:ml|ai|machine\s+learning)\b|"
     r"(?<![\w.\-])(?:ecs\.)?[cgr][5-9][a-z]{0,2}\s*(?:or|vs\.?|versus|and|和|还是|或|跟)\s*(?:ecs\.)?[cgr][5-9][a-z]{0,2}"
     r"(?![\w\-])"),
    # Last: a workload named above is said to be out of reach as that workload, wherever it would run.
    # Buying hardware, not renting: "buy a subscription" or "买阿里云服务器" (renting, in users' words) is no purchase.
    ("purchase", r"^(?![\s\S]*(?:alibaba|aliyun|阿里云|\becs\b|instance))[\s\S]*?"
     r"\b(?:buy(?:ing)?|purchas\w+)\b.{0,40}\b(?:servers?|boxes|machines|cards|hardware)\b|"
     r"on[\s\-]?prem\w*|"
     r"own\s+data\s*cent(?:er|re)s?|build\s+(?:our|my)\s+own|own\s+(?:rig|hardware|gpu\s+server)|组装|装机|攒一台|\btco\b|total\s+cost\s+of\s+ownership|colocation|自己买|自购|自建机房|"
     r"买.{0,6}(?:物理机|整机|裸机)|(?:放|托管)(?:在|到)?(?:自己的?)?机房|机房托管|总拥有成本"),
    ("other_cloud", OTHER_CLOUD),
    ("storage_price", r"(?:\boss\b|\bnas\b|cpfs|essd|云盘|对象存储|object\s+storage|block\s+storage|cloud\s+disks?)"
     r".{0,40}(?:价|费用|多少钱|收费|price|pricing|cost|per\s+gb)|"
     r"(?:价|费用|多少钱|收费|price|pricing|cost)\w*.{0,30}(?:\boss\b|\bnas\b|cpfs|essd|云盘|对象存储|object\s+storage)"),
)
_TRAINS = (
    r"训练|微调|精调|预训练|lora|dreambooth|fine[\s\-]*tun\w*|finetun\w*|\btrain\w*|pre[\s\-]?train\w*|from\s+scratch"
)
# Passages are kept only when they are about the workload: these words in the section or its text.
ABOUT: dict[ReachTopic, str] = {
    "image": r"diffusion|sdxl|flux|text-to-image|image generation|文生图|扩散|图像生成",
    "video": r"video|视频",
    "speech": r"speech|whisper|audio|asr|语音|音频",
    "embedding": r"embedding|rerank|bge|向量|重排",
    "vlm": r"vision-language|qwen2\.5-vl|视觉语言",
    "storage_price": r"\boss\b|\bnas\b|cpfs|essd|storage|存储|云盘",
    "cloud_price": _MANAGED,  # a managed service the guidance describes; bandwidth or databases it does not
}
MEDIA_KINDS: dict[ReachTopic, tuple[str, ...]] = {
    "image": ("diffusion",),
    "video": ("diffusion",),
    "speech": ("speech",),
    "embedding": ("embedding", "reranker"),
    "vlm": ("vlm",),
}
_KIND_TOPIC: dict[str, ReachTopic] = {"diffusion": "image", "speech": "speech", "embedding": "embedding",
                                      "reranker": "embedding", "vlm": "vlm"}


# Words for a whole kind of model ("video generation", "向量模型"), as opposed to a model's name: a question
# with only these is asking which model to use, and the registry's models of that kind are the answer.
_GENERIC: dict[ReachTopic, str] = {
    "image": r"文生图|图像生成|生成图片|生图|画图|text[\s\-]to[\s\-]image|image\s+generat\w+|diffusion\s+models?|"
    r"扩散模型",
    "video": r"视频生成|生成视频|文生视频|图生视频|出视频|text[\s\-]to[\s\-]video|image[\s\-]to[\s\-]video|"
    r"video\s+(?:generation|models?)|(?<!stable\s)video\s+diffusion|generat\w+\s+videos?",
    "speech": r"语音识别|语音转文字|speech[\s\-]to[\s\-]text|speech\s+recognition|\basr\b",
    "embedding": r"embedding(?:\s+models?)?|向量模型|嵌入模型|向量化|rerank\w*|重排",
}


class ReachAsk(BaseModel):
    """A workload out of the tools' reach: what it is, and whether the user wants to train it."""

    model_config = ConfigDict(extra="forbid")

    topic: ReachTopic
    training: bool = False
    generic: bool = False  # only the kind was named ("video generation"), no model
    name: str | None = None  # the model name as written, when one was named
    subject: str | None = None  # a cloud-ops subject of OPS_SUBJECTS ("quota"), when the question is on one


_ACTIVITY = re.compile(r"[a-z\s\-]+(?:tion|sion|ing|ment)s?")  # "diarization": no model's name


# "a chatbot like ChatGPT", "类似 ChatGPT 的助手", "a ChatGPT-style assistant": the kind of product wanted, not a
# closed model to deploy
_LIKE_A_CLOSED_MODEL = (
    r"(?:\blike|\bsimilar\s+to|\bas\s+good\s+as|\bà\s+la|类似|像|仿|媲美|对标)\s*(?:an?\s+|the\s+)?"
    r"(?:chatgpt|gpt-?4o?|claude|gemini|文心一言|豆包)"
    r"|(?:chatgpt|gpt-?4o?|claude|gemini|文心一言|豆包)[\s\-]?(?:like|style|一样|那样|那种|式)"
)


def without_product_likeness(text: str) -> str:
    """``text`` without "like ChatGPT" / "ChatGPT 一样的": the product wanted is described, no model is named."""
    return re.sub(_LIKE_A_CLOSED_MODEL, " ", text, flags=re.IGNORECASE)


def out_of_reach(text: str) -> ReachAsk | None:
    """Name the out-of-reach workload ``text`` is about, or None (serving a registry model is in reach)."""
    text = without_product_likeness(text)
    for topic, pattern in _TOPICS:
        if compiled(pattern).search(text):
            rest = re.sub(_GENERIC[topic], " ", text, flags=re.IGNORECASE) if topic in _GENERIC else text
            generic = not re.search(pattern, rest, re.IGNORECASE)
            named = None if generic else re.search(pattern, rest, re.IGNORECASE)
            name = named.group(0).strip() if named else None
            if name and _ACTIVITY.fullmatch(name):
                name = None  # "diarization" names an activity, not a model
            subject = ops_subject(text) if topic == "cloud_ops" else None
            return ReachAsk(topic=topic, training=bool(re.search(_TRAINS, text, re.IGNORECASE)), generic=generic,
                            name=name, subject=subject)
    return None


def cpu_only(text: str) -> ReachAsk | None:
    """Read a run on a laptop or on CPUs alone, whatever model it names (a database nearby is no CPU-only run)."""
    for topic in ("local", "cpu"):
        named = topic == "local" or re.search("cpu", text, re.IGNORECASE)
        if named and re.search(_TOPICS_BY_NAME[topic], text, re.IGNORECASE):
            return ReachAsk(topic=topic)
    return None


# A run with no GPU in it, in so many words: whatever model it names, there is no GPU instance to size.
_NO_GPU_RUN = (
    r"(?:no|without(?:\s+a(?:ny)?)?)\s+gpus?\b|cpu[\s\-]*only|only\s+(?:a\s+)?cpus?\b|(?:纯|只用|只有|仅用)\s*cpu|"
    r"(?:没有|不用|不上|不要|不想(?:花钱)?上)\s*(?:显卡|gpu)|"
    r"cpu\s*(?:实例|机器|服务器|box|instance|server|machine)"
)


# Parts that can sit beside a sized model, in the order they are looked for.
_BESIDE: tuple[ReachTopic, ...] = ("speech", "vision", "image", "video", "encoder", "other_ml", "classic_ml")


def other_part(text: str, kind: str | None) -> ReachAsk | None:
    """Return an out-of-reach part beside a registry media model of ``kind`` (not that model's own kind)."""
    own = _KIND_TOPIC.get(kind or "")
    for topic in _BESIDE:
        if topic != own and compiled(_TOPICS_BY_NAME[topic]).search(text):
            return ReachAsk(topic=topic)
    return None


def cpu_run(text: str) -> ReachAsk | None:
    """Read a run said to have no GPU ("with no GPU at all", "纯 CPU 机器"), as a CPU-only run."""
    return ReachAsk(topic="local") if compiled(_NO_GPU_RUN).search(text.lower()) else None


def about(topic: ReachTopic, text: str) -> bool:
    """Tell whether a passage's text is about the workload (topics with no guidance have none)."""
    pattern = ABOUT.get(topic)
    return bool(pattern and re.search(pattern, text, re.IGNORECASE))


def media_training(kind: str | None, text: str) -> ReachAsk:
    """Training a registry model (an SDXL LoRA, fine-tuning Qwen2.5-VL): out of reach, as its kind's topic."""
    video = bool(re.search(_TOPICS_BY_NAME["video"], text, re.IGNORECASE))
    return ReachAsk(topic="video" if video else _KIND_TOPIC.get(kind or "", "image"), training=True)


_TOPICS_BY_NAME = dict(_TOPICS)


def other_cloud(text: str) -> bool:
    """Tell whether the question names another cloud or one of its instance types."""
    return bool(re.search(f"{OTHER_CLOUD}|{_OTHER_CLOUD_TYPES}", text, re.IGNORECASE))


def without_other_cloud_types(text: str) -> str:
    """Drop other clouds' instance names from the question, so "p4d" is not read as the P4 GPU.

    The name right after another cloud ("腾讯云的 GN7", "AWS g5.12xlarge") is theirs too, not an Alibaba family.
    """
    if not re.search(OTHER_CLOUD, text, re.IGNORECASE):
        return text
    text = re.sub(_OTHER_CLOUD_TYPES, " ", text, flags=re.IGNORECASE)
    theirs = rf"({OTHER_CLOUD})(\s*(?:的|'s)?\s*)[A-Za-z][\w.\-]*\d[\w.\-]*"
    return re.sub(theirs, lambda m: m.group(1) + m.group(2), text, flags=re.IGNORECASE)
